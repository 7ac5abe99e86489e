// MP with release/acquire at device scope, written to the kernel convention
// of include/redscope/dialects/cuda/cuda.hpp (test 0 of its translation unit).
#include <cuda/atomic>
namespace redscope_t0 {
extern "C" __global__ void redscope_t0_P0(int *x, int *y, int *__out) {
#line 4 "MP.litmus"
  *x = 1;
  cuda::atomic_ref<int, cuda::thread_scope_device>(*y).store(1, cuda::std::memory_order_release);
}
extern "C" __global__ void redscope_t0_P1(int *x, int *y, int *__out) {
#line 8 "MP.litmus"
  int r0 = cuda::atomic_ref<int, cuda::thread_scope_device>(*y).load(cuda::std::memory_order_acquire);
  int r1 = *x;
  { auto __v = +r0; *(decltype(__v) *)((char *)__out + 0) = __v; }
  { auto __v = +r1; *(decltype(__v) *)((char *)__out + 8) = __v; }
}
// P1 again, spinning on the acquire load until it reads 1.
extern "C" __global__ void redscope_t0_P2(int *x, int *y, int *__out) {
#line 14 "MP.litmus"
  while (cuda::atomic_ref<int, cuda::thread_scope_device>(*y).load(cuda::std::memory_order_acquire) == 0) {
  }
  int r1 = *x;
  { auto __v = +r1; *(decltype(__v) *)((char *)__out + 0) = __v; }
}
}  // namespace redscope_t0
