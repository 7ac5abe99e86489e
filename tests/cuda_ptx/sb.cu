// SB with seq_cst stores and loads at device scope, and SB relaxed.
#include <cuda/atomic>
namespace redscope_t1 {
extern "C" __global__ void redscope_t1_P0(int *x, int *y, int *__out) {
#line 4 "SB.litmus"
  cuda::atomic_ref<int, cuda::thread_scope_device>(*x).store(1, cuda::std::memory_order_seq_cst);
  int r0 = cuda::atomic_ref<int, cuda::thread_scope_device>(*y).load(cuda::std::memory_order_seq_cst);
  { auto __v = +r0; *(decltype(__v) *)((char *)__out + 0) = __v; }
}
extern "C" __global__ void redscope_t1_P1(int *x, int *y, int *__out) {
#line 9 "SB.litmus"
  cuda::atomic_ref<int, cuda::thread_scope_device>(*y).store(1, cuda::std::memory_order_seq_cst);
  int r1 = cuda::atomic_ref<int, cuda::thread_scope_device>(*x).load(cuda::std::memory_order_seq_cst);
  { auto __v = +r1; *(decltype(__v) *)((char *)__out + 0) = __v; }
}
extern "C" __global__ void redscope_t1_Q0(int *x, int *y, int *__out) {
#line 14 "SB.litmus"
  cuda::atomic_ref<int, cuda::thread_scope_device>(*x).store(1, cuda::std::memory_order_relaxed);
  int r0 = cuda::atomic_ref<int, cuda::thread_scope_device>(*y).load(cuda::std::memory_order_relaxed);
  { auto __v = +r0; *(decltype(__v) *)((char *)__out + 0) = __v; }
}
extern "C" __global__ void redscope_t1_Q1(int *x, int *y, int *__out) {
#line 19 "SB.litmus"
  cuda::atomic_ref<int, cuda::thread_scope_device>(*y).store(1, cuda::std::memory_order_relaxed);
  int r1 = cuda::atomic_ref<int, cuda::thread_scope_device>(*x).load(cuda::std::memory_order_relaxed);
  { auto __v = +r1; *(decltype(__v) *)((char *)__out + 0) = __v; }
}
}  // namespace redscope_t1
