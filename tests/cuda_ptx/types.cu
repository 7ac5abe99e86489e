// 64-bit and float locations and locals: long long *x, double *y (test 3).
#include <cuda/atomic>
namespace redscope_t3 {
extern "C" __global__ void redscope_t3_P0(long long *x, double *y, int *__out) {
#line 2 "types.litmus"
  long long r0 = cuda::atomic_ref<long long, cuda::thread_scope_device>(*x).fetch_add(3, cuda::std::memory_order_relaxed);
  double r1 = *y;
  int r2 = (int)r0;
  long long r3 = r2;
  *y = 2.5;
  { auto __v = +r0; *(decltype(__v) *)((char *)__out + 0) = __v; }
  { auto __v = +r1; *(decltype(__v) *)((char *)__out + 8) = __v; }
  { auto __v = +r2; *(decltype(__v) *)((char *)__out + 16) = __v; }
  { auto __v = +r3; *(decltype(__v) *)((char *)__out + 24) = __v; }
}
}  // namespace redscope_t3
