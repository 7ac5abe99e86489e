// One kernel per idiom nvcc emits around memory operations (docs/cuda.md
// "How nvcc's PTX is read"); locations: int *x, int *y, __shared__ int s.
#include <cuda/atomic>
namespace redscope_t2 {
__shared__ int s;
__shared__ int t;
// A relaxed fetch_add on a __shared__ variable at block scope, a plain
// store to another, and __syncthreads.
extern "C" __global__ void redscope_t2_P0(int *x, int *y, int *__out) {
#line 5 "idioms.litmus"
  t = 3;
  int r0 = cuda::atomic_ref<int, cuda::thread_scope_block>(s).fetch_add(1, cuda::std::memory_order_relaxed);
  __syncthreads();
  int r1 = s;
  { auto __v = +r0; *(decltype(__v) *)((char *)__out + 0) = __v; }
  { auto __v = +r1; *(decltype(__v) *)((char *)__out + 8) = __v; }
}
// A CAS spin lock on y, then a read of x.
extern "C" __global__ void redscope_t2_P1(int *x, int *y, int *__out) {
#line 12 "idioms.litmus"
  while (atomicCAS(y, 0, 1) != 0) {
  }
  int r0 = *x;
  { auto __v = +r0; *(decltype(__v) *)((char *)__out + 0) = __v; }
}
// __threadfence between volatile accesses.
extern "C" __global__ void redscope_t2_P2(int *x, int *y, int *__out) {
#line 18 "idioms.litmus"
  *(volatile int *)x = 1;
  __threadfence();
  int r0 = *(volatile int *)y;
  { auto __v = +r0; *(decltype(__v) *)((char *)__out + 0) = __v; }
}
// if and ?: on a loaded value.
extern "C" __global__ void redscope_t2_P3(int *x, int *y, int *__out) {
#line 24 "idioms.litmus"
  int r0 = *x;
  int r1 = r0 == 1 ? 7 : 3;
  if (r0 == 2) *y = 5;
  { auto __v = +r0; *(decltype(__v) *)((char *)__out + 0) = __v; }
  { auto __v = +r1; *(decltype(__v) *)((char *)__out + 8) = __v; }
}
// An address indexed by threadIdx.x: computed at run time.
extern "C" __global__ void redscope_t2_P4(int *x, int *y, int *__out) {
#line 30 "idioms.litmus"
  x[threadIdx.x] = 1;
}
// Constant offsets: x[1] through a pointer, and atomicAdd_block on s.
extern "C" __global__ void redscope_t2_P5(int *x, int *y, int *__out) {
#line 34 "idioms.litmus"
  x[1] = 2;
  int r0 = atomicAdd_block(&s, 2);
  int r1 = atomicExch(y, 4);
  { auto __v = +r0; *(decltype(__v) *)((char *)__out + 0) = __v; }
  { auto __v = +r1; *(decltype(__v) *)((char *)__out + 8) = __v; }
}
// Integer arithmetic on loaded values (x = -7, y = 10 in the test).
extern "C" __global__ void redscope_t2_P6(int *x, int *y, int *__out) {
#line 41 "idioms.litmus"
  int a = *x;
  unsigned u = *(unsigned *)y;
  int r0 = a * 4;
  int r1 = -a;
  int r2 = ~a;
  int r3 = min(a, 3);
  int r4 = max(a, 3);
  int r5 = abs(a);
  int r6 = (int)(u >> 1);
  int r7 = a * 3 + *y;
  { auto __v = +r0; *(decltype(__v) *)((char *)__out + 0) = __v; }
  { auto __v = +r1; *(decltype(__v) *)((char *)__out + 8) = __v; }
  { auto __v = +r2; *(decltype(__v) *)((char *)__out + 16) = __v; }
  { auto __v = +r3; *(decltype(__v) *)((char *)__out + 24) = __v; }
  { auto __v = +r4; *(decltype(__v) *)((char *)__out + 32) = __v; }
  { auto __v = +r5; *(decltype(__v) *)((char *)__out + 40) = __v; }
  { auto __v = +r6; *(decltype(__v) *)((char *)__out + 48) = __v; }
  { auto __v = +r7; *(decltype(__v) *)((char *)__out + 56) = __v; }
}
}  // namespace redscope_t2
