// ---- kernel ----
namespace {
struct axon_scratch {
  float* data = nullptr;
  ~axon_scratch() { std::free(data); }
};
}  // namespace

static int axon_kernel_compute(const float* axon_p_x, const float* axon_p_g, float* axon_out0) {
  const float* const axon_in0 = axon_p_x;
  const float* const axon_in1 = axon_p_g;
  static thread_local axon_scratch scratch;
  if (!scratch.data) scratch.data = static_cast<float*>(std::aligned_alloc(64, 64));
  if (!scratch.data) return 1;
  float* const axon_arena = scratch.data;
  float* const axon_t2 = axon_arena + 0;
  {  // stage 0: sum over [7, 33r], fold sum; W=8 MR=1 NV=4 threads=1
    for (int64_t blk = 0; blk < 7; ++blk) {
      int64_t rest = blk;
      const int64_t i0 = rest % 7;
      rest /= 7;
      (void)rest;
      auto acc0 = _mm256_setzero_ps();
      auto acc1 = _mm256_setzero_ps();
      auto acc2 = _mm256_setzero_ps();
      auto acc3 = _mm256_setzero_ps();
      for (int64_t vb = 0; vb < 1; ++vb) {
        const auto x4 = _mm256_loadu_ps((axon_in0 + 0 + 33 * i0 + 1 * (vb * 32 + 0)));
        const auto v5 = _mm256_fmadd_ps(x4, x4, acc0);
        acc0 = v5;
        const auto x6 = _mm256_loadu_ps((axon_in0 + 0 + 33 * i0 + 1 * (vb * 32 + 8)));
        const auto v7 = _mm256_fmadd_ps(x6, x6, acc1);
        acc1 = v7;
        const auto x8 = _mm256_loadu_ps((axon_in0 + 0 + 33 * i0 + 1 * (vb * 32 + 16)));
        const auto v9 = _mm256_fmadd_ps(x8, x8, acc2);
        acc2 = v9;
        const auto x10 = _mm256_loadu_ps((axon_in0 + 0 + 33 * i0 + 1 * (vb * 32 + 24)));
        const auto v11 = _mm256_fmadd_ps(x10, x10, acc3);
        acc3 = v11;
      }
      const auto x12 = _mm256_maskload_ps((axon_in0 + 0 + 33 * i0 + 1 * 32), axon_tail_mask8(1));
      const auto v13 = _mm256_fmadd_ps(x12, x12, acc0);
      acc0 = _mm256_blendv_ps(acc0, v13, _mm256_castsi256_ps(axon_tail_mask8(1)));
      const auto v14 = _mm256_add_ps(acc0, acc1);
      acc0 = v14;
      const auto v15 = _mm256_add_ps(acc0, acc2);
      acc0 = v15;
      const auto v16 = _mm256_add_ps(acc0, acc3);
      acc0 = v16;
      const auto s17 = axon_reduce_add_ps256(acc0);
      (*((axon_t2 + 0 + 1 * i0)) = s17);
    }
  }
  {  // stage 1: mul over [7, 33]; W=8 MR=1 NV=4 threads=1
    for (int64_t blk = 0; blk < 14; ++blk) {
      int64_t rest = blk;
      const int64_t outer_block = rest % 2;
      rest /= 2;
      const int64_t i0 = rest % 7;
      rest /= 7;
      (void)rest;
      const int64_t vb = outer_block / 1;
      const int64_t rb = outer_block % 1;
      const int64_t v0 = vb * 32;
      const int64_t r0 = rb * 1;
      (void)r0;
      if (vb + 1 < 2) {
        const auto x22 = _mm256_loadu_ps((axon_in0 + 0 + 33 * i0 + 1 * (v0 + 0)));
        const auto x23 = _mm256_set1_ps((*((axon_t2 + 0 + 1 * i0))));
        const auto x24 = _mm256_loadu_ps((axon_in1 + 0 + 1 * (v0 + 0)));
        const auto v25 = _mm256_set1_ps(33.0f);
        const auto v26 = _mm256_set1_ps(1e-06f);
        const auto v27 = _mm256_fmadd_ps(x23, axon_rcp_refined_ps256(v25), v26);
        const auto v28 = _mm256_mul_ps(x22, axon_rsqrt_refined_ps256(v27));
        const auto v29 = _mm256_mul_ps(v28, x24);
        _mm256_storeu_ps((axon_out0 + 0 + 33 * i0 + 1 * (v0 + 0)), v29);
        const auto x30 = _mm256_loadu_ps((axon_in0 + 0 + 33 * i0 + 1 * (v0 + 8)));
        const auto x31 = _mm256_set1_ps((*((axon_t2 + 0 + 1 * i0))));
        const auto x32 = _mm256_loadu_ps((axon_in1 + 0 + 1 * (v0 + 8)));
        const auto v33 = _mm256_set1_ps(33.0f);
        const auto v34 = _mm256_set1_ps(1e-06f);
        const auto v35 = _mm256_fmadd_ps(x31, axon_rcp_refined_ps256(v33), v34);
        const auto v36 = _mm256_mul_ps(x30, axon_rsqrt_refined_ps256(v35));
        const auto v37 = _mm256_mul_ps(v36, x32);
        _mm256_storeu_ps((axon_out0 + 0 + 33 * i0 + 1 * (v0 + 8)), v37);
        const auto x38 = _mm256_loadu_ps((axon_in0 + 0 + 33 * i0 + 1 * (v0 + 16)));
        const auto x39 = _mm256_set1_ps((*((axon_t2 + 0 + 1 * i0))));
        const auto x40 = _mm256_loadu_ps((axon_in1 + 0 + 1 * (v0 + 16)));
        const auto v41 = _mm256_set1_ps(33.0f);
        const auto v42 = _mm256_set1_ps(1e-06f);
        const auto v43 = _mm256_fmadd_ps(x39, axon_rcp_refined_ps256(v41), v42);
        const auto v44 = _mm256_mul_ps(x38, axon_rsqrt_refined_ps256(v43));
        const auto v45 = _mm256_mul_ps(v44, x40);
        _mm256_storeu_ps((axon_out0 + 0 + 33 * i0 + 1 * (v0 + 16)), v45);
        const auto x46 = _mm256_loadu_ps((axon_in0 + 0 + 33 * i0 + 1 * (v0 + 24)));
        const auto x47 = _mm256_set1_ps((*((axon_t2 + 0 + 1 * i0))));
        const auto x48 = _mm256_loadu_ps((axon_in1 + 0 + 1 * (v0 + 24)));
        const auto v49 = _mm256_set1_ps(33.0f);
        const auto v50 = _mm256_set1_ps(1e-06f);
        const auto v51 = _mm256_fmadd_ps(x47, axon_rcp_refined_ps256(v49), v50);
        const auto v52 = _mm256_mul_ps(x46, axon_rsqrt_refined_ps256(v51));
        const auto v53 = _mm256_mul_ps(v52, x48);
        _mm256_storeu_ps((axon_out0 + 0 + 33 * i0 + 1 * (v0 + 24)), v53);
      } else {
        const auto x55 = _mm256_maskload_ps((axon_in0 + 0 + 33 * i0 + 1 * (v0 + 0)), axon_tail_mask8(1));
        const auto x56 = _mm256_set1_ps((*((axon_t2 + 0 + 1 * i0))));
        const auto x57 = _mm256_maskload_ps((axon_in1 + 0 + 1 * (v0 + 0)), axon_tail_mask8(1));
        const auto v58 = _mm256_set1_ps(33.0f);
        const auto v59 = _mm256_set1_ps(1e-06f);
        const auto v60 = _mm256_fmadd_ps(x56, axon_rcp_refined_ps256(v58), v59);
        const auto v61 = _mm256_mul_ps(x55, axon_rsqrt_refined_ps256(v60));
        const auto v62 = _mm256_mul_ps(v61, x57);
        _mm256_maskstore_ps((axon_out0 + 0 + 33 * i0 + 1 * (v0 + 0)), axon_tail_mask8(1), v62);
      }
    }
  }
  return 0;
}

extern "C" int axon_k_rmsnorm(const float* axon_p_x, const float* axon_p_g, float* axon_out0) {
  return axon_kernel_compute(axon_p_x, axon_p_g, axon_out0);
}

extern "C" int axon_kernel_packed(const float* const* in, float* const* out) {
  (void)in;
  return axon_kernel_compute(in[0], in[1], out[0]);
}

extern "C" const char* axon_kernel_info() {
  return "{\n"
      "  \"kernel\": \"rmsnorm\",\n"
      "  \"symbol\": \"axon_k_rmsnorm\",\n"
      "  \"packed_symbol\": \"axon_kernel_packed\",\n"
      "  \"target\": \"x86-avx2\",\n"
      "  \"inputs\": [\n"
      "    {\"name\":\"x\",\"c_name\":\"axon_p_x\",\"dtype\":\"f32\",\"shape\":[7,33]},\n"
      "    {\"name\":\"g\",\"c_name\":\"axon_p_g\",\"dtype\":\"f32\",\"shape\":[33]}\n"
      "  ],\n"
      "  \"outputs\": [\n"
      "    {\"name\":\"out0\",\"c_name\":\"axon_out0\",\"dtype\":\"f32\",\"shape\":[7,33]}\n"
      "  ]\n"
      "}";
}
