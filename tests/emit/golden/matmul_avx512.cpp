// ---- kernel ----
namespace {
struct axon_scratch {
  float* data = nullptr;
  ~axon_scratch() { std::free(data); }
};
}  // namespace

static int axon_kernel_compute(const float* axon_p_a, const float* axon_p_b, float* axon_out0) {
  const float* const axon_in0 = axon_p_a;
  const float* const axon_in1 = axon_p_b;
  {  // stage 0: einsum ab,bc->ac over [9, 37, 5r], fold sum; W=16 MR=8 NV=3 threads=1
    for (int64_t blk = 0; blk < 2; ++blk) {
      int64_t rest = blk;
      const int64_t outer_block = rest % 2;
      rest /= 2;
      (void)rest;
      const int64_t vb = outer_block / 2;
      const int64_t rb = outer_block % 2;
      const int64_t v0 = vb * 48;
      const int64_t r0 = rb * 8;
      (void)r0;
      if (r0 + 8 <= 9) {
        auto acc0 = _mm512_setzero_ps();
        auto acc1 = _mm512_setzero_ps();
        auto acc2 = _mm512_setzero_ps();
        auto acc3 = _mm512_setzero_ps();
        auto acc4 = _mm512_setzero_ps();
        auto acc5 = _mm512_setzero_ps();
        auto acc6 = _mm512_setzero_ps();
        auto acc7 = _mm512_setzero_ps();
        auto acc8 = _mm512_setzero_ps();
        auto acc9 = _mm512_setzero_ps();
        auto acc10 = _mm512_setzero_ps();
        auto acc11 = _mm512_setzero_ps();
        auto acc12 = _mm512_setzero_ps();
        auto acc13 = _mm512_setzero_ps();
        auto acc14 = _mm512_setzero_ps();
        auto acc15 = _mm512_setzero_ps();
        auto acc16 = _mm512_setzero_ps();
        auto acc17 = _mm512_setzero_ps();
        auto acc18 = _mm512_setzero_ps();
        auto acc19 = _mm512_setzero_ps();
        auto acc20 = _mm512_setzero_ps();
        auto acc21 = _mm512_setzero_ps();
        auto acc22 = _mm512_setzero_ps();
        auto acc23 = _mm512_setzero_ps();
        for (int64_t i2 = 0; i2 < 5; ++i2) {
          const auto x24 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 0) + 1 * i2))));
          const auto x25 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 0) + 37 * i2));
          const auto v26 = _mm512_fmadd_ps(x24, x25, acc0);
          acc0 = v26;
          const auto x27 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 0) + 1 * i2))));
          const auto x28 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 16) + 37 * i2));
          const auto v29 = _mm512_fmadd_ps(x27, x28, acc1);
          acc1 = v29;
          const auto x30 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 0) + 1 * i2))));
          const auto x31 = _mm512_maskz_loadu_ps((__mmask16)((1u << 5) - 1u), (axon_in1 + 0 + 1 * (v0 + 32) + 37 * i2));
          const auto v32 = _mm512_fmadd_ps(x30, x31, acc2);
          acc2 = v32;
          const auto x33 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 1) + 1 * i2))));
          const auto x34 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 0) + 37 * i2));
          const auto v35 = _mm512_fmadd_ps(x33, x34, acc3);
          acc3 = v35;
          const auto x36 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 1) + 1 * i2))));
          const auto x37 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 16) + 37 * i2));
          const auto v38 = _mm512_fmadd_ps(x36, x37, acc4);
          acc4 = v38;
          const auto x39 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 1) + 1 * i2))));
          const auto x40 = _mm512_maskz_loadu_ps((__mmask16)((1u << 5) - 1u), (axon_in1 + 0 + 1 * (v0 + 32) + 37 * i2));
          const auto v41 = _mm512_fmadd_ps(x39, x40, acc5);
          acc5 = v41;
          const auto x42 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 2) + 1 * i2))));
          const auto x43 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 0) + 37 * i2));
          const auto v44 = _mm512_fmadd_ps(x42, x43, acc6);
          acc6 = v44;
          const auto x45 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 2) + 1 * i2))));
          const auto x46 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 16) + 37 * i2));
          const auto v47 = _mm512_fmadd_ps(x45, x46, acc7);
          acc7 = v47;
          const auto x48 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 2) + 1 * i2))));
          const auto x49 = _mm512_maskz_loadu_ps((__mmask16)((1u << 5) - 1u), (axon_in1 + 0 + 1 * (v0 + 32) + 37 * i2));
          const auto v50 = _mm512_fmadd_ps(x48, x49, acc8);
          acc8 = v50;
          const auto x51 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 3) + 1 * i2))));
          const auto x52 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 0) + 37 * i2));
          const auto v53 = _mm512_fmadd_ps(x51, x52, acc9);
          acc9 = v53;
          const auto x54 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 3) + 1 * i2))));
          const auto x55 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 16) + 37 * i2));
          const auto v56 = _mm512_fmadd_ps(x54, x55, acc10);
          acc10 = v56;
          const auto x57 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 3) + 1 * i2))));
          const auto x58 = _mm512_maskz_loadu_ps((__mmask16)((1u << 5) - 1u), (axon_in1 + 0 + 1 * (v0 + 32) + 37 * i2));
          const auto v59 = _mm512_fmadd_ps(x57, x58, acc11);
          acc11 = v59;
          const auto x60 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 4) + 1 * i2))));
          const auto x61 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 0) + 37 * i2));
          const auto v62 = _mm512_fmadd_ps(x60, x61, acc12);
          acc12 = v62;
          const auto x63 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 4) + 1 * i2))));
          const auto x64 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 16) + 37 * i2));
          const auto v65 = _mm512_fmadd_ps(x63, x64, acc13);
          acc13 = v65;
          const auto x66 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 4) + 1 * i2))));
          const auto x67 = _mm512_maskz_loadu_ps((__mmask16)((1u << 5) - 1u), (axon_in1 + 0 + 1 * (v0 + 32) + 37 * i2));
          const auto v68 = _mm512_fmadd_ps(x66, x67, acc14);
          acc14 = v68;
          const auto x69 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 5) + 1 * i2))));
          const auto x70 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 0) + 37 * i2));
          const auto v71 = _mm512_fmadd_ps(x69, x70, acc15);
          acc15 = v71;
          const auto x72 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 5) + 1 * i2))));
          const auto x73 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 16) + 37 * i2));
          const auto v74 = _mm512_fmadd_ps(x72, x73, acc16);
          acc16 = v74;
          const auto x75 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 5) + 1 * i2))));
          const auto x76 = _mm512_maskz_loadu_ps((__mmask16)((1u << 5) - 1u), (axon_in1 + 0 + 1 * (v0 + 32) + 37 * i2));
          const auto v77 = _mm512_fmadd_ps(x75, x76, acc17);
          acc17 = v77;
          const auto x78 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 6) + 1 * i2))));
          const auto x79 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 0) + 37 * i2));
          const auto v80 = _mm512_fmadd_ps(x78, x79, acc18);
          acc18 = v80;
          const auto x81 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 6) + 1 * i2))));
          const auto x82 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 16) + 37 * i2));
          const auto v83 = _mm512_fmadd_ps(x81, x82, acc19);
          acc19 = v83;
          const auto x84 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 6) + 1 * i2))));
          const auto x85 = _mm512_maskz_loadu_ps((__mmask16)((1u << 5) - 1u), (axon_in1 + 0 + 1 * (v0 + 32) + 37 * i2));
          const auto v86 = _mm512_fmadd_ps(x84, x85, acc20);
          acc20 = v86;
          const auto x87 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 7) + 1 * i2))));
          const auto x88 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 0) + 37 * i2));
          const auto v89 = _mm512_fmadd_ps(x87, x88, acc21);
          acc21 = v89;
          const auto x90 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 7) + 1 * i2))));
          const auto x91 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 16) + 37 * i2));
          const auto v92 = _mm512_fmadd_ps(x90, x91, acc22);
          acc22 = v92;
          const auto x93 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 7) + 1 * i2))));
          const auto x94 = _mm512_maskz_loadu_ps((__mmask16)((1u << 5) - 1u), (axon_in1 + 0 + 1 * (v0 + 32) + 37 * i2));
          const auto v95 = _mm512_fmadd_ps(x93, x94, acc23);
          acc23 = v95;
        }
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 0) + 1 * (v0 + 0)), acc0);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 0) + 1 * (v0 + 16)), acc1);
        _mm512_mask_storeu_ps((axon_out0 + 0 + 37 * (r0 + 0) + 1 * (v0 + 32)), (__mmask16)((1u << 5) - 1u), acc2);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 1) + 1 * (v0 + 0)), acc3);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 1) + 1 * (v0 + 16)), acc4);
        _mm512_mask_storeu_ps((axon_out0 + 0 + 37 * (r0 + 1) + 1 * (v0 + 32)), (__mmask16)((1u << 5) - 1u), acc5);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 2) + 1 * (v0 + 0)), acc6);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 2) + 1 * (v0 + 16)), acc7);
        _mm512_mask_storeu_ps((axon_out0 + 0 + 37 * (r0 + 2) + 1 * (v0 + 32)), (__mmask16)((1u << 5) - 1u), acc8);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 3) + 1 * (v0 + 0)), acc9);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 3) + 1 * (v0 + 16)), acc10);
        _mm512_mask_storeu_ps((axon_out0 + 0 + 37 * (r0 + 3) + 1 * (v0 + 32)), (__mmask16)((1u << 5) - 1u), acc11);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 4) + 1 * (v0 + 0)), acc12);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 4) + 1 * (v0 + 16)), acc13);
        _mm512_mask_storeu_ps((axon_out0 + 0 + 37 * (r0 + 4) + 1 * (v0 + 32)), (__mmask16)((1u << 5) - 1u), acc14);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 5) + 1 * (v0 + 0)), acc15);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 5) + 1 * (v0 + 16)), acc16);
        _mm512_mask_storeu_ps((axon_out0 + 0 + 37 * (r0 + 5) + 1 * (v0 + 32)), (__mmask16)((1u << 5) - 1u), acc17);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 6) + 1 * (v0 + 0)), acc18);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 6) + 1 * (v0 + 16)), acc19);
        _mm512_mask_storeu_ps((axon_out0 + 0 + 37 * (r0 + 6) + 1 * (v0 + 32)), (__mmask16)((1u << 5) - 1u), acc20);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 7) + 1 * (v0 + 0)), acc21);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 7) + 1 * (v0 + 16)), acc22);
        _mm512_mask_storeu_ps((axon_out0 + 0 + 37 * (r0 + 7) + 1 * (v0 + 32)), (__mmask16)((1u << 5) - 1u), acc23);
      } else {
        auto acc96 = _mm512_setzero_ps();
        auto acc97 = _mm512_setzero_ps();
        auto acc98 = _mm512_setzero_ps();
        for (int64_t i2 = 0; i2 < 5; ++i2) {
          const auto x99 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 0) + 1 * i2))));
          const auto x100 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 0) + 37 * i2));
          const auto v101 = _mm512_fmadd_ps(x99, x100, acc96);
          acc96 = v101;
          const auto x102 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 0) + 1 * i2))));
          const auto x103 = _mm512_loadu_ps((axon_in1 + 0 + 1 * (v0 + 16) + 37 * i2));
          const auto v104 = _mm512_fmadd_ps(x102, x103, acc97);
          acc97 = v104;
          const auto x105 = _mm512_set1_ps((*((axon_in0 + 0 + 5 * (r0 + 0) + 1 * i2))));
          const auto x106 = _mm512_maskz_loadu_ps((__mmask16)((1u << 5) - 1u), (axon_in1 + 0 + 1 * (v0 + 32) + 37 * i2));
          const auto v107 = _mm512_fmadd_ps(x105, x106, acc98);
          acc98 = v107;
        }
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 0) + 1 * (v0 + 0)), acc96);
        _mm512_storeu_ps((axon_out0 + 0 + 37 * (r0 + 0) + 1 * (v0 + 16)), acc97);
        _mm512_mask_storeu_ps((axon_out0 + 0 + 37 * (r0 + 0) + 1 * (v0 + 32)), (__mmask16)((1u << 5) - 1u), acc98);
      }
    }
  }
  return 0;
}

extern "C" int axon_k_matmul(const float* axon_p_a, const float* axon_p_b, float* axon_out0) {
  return axon_kernel_compute(axon_p_a, axon_p_b, axon_out0);
}

extern "C" int axon_kernel_packed(const float* const* in, float* const* out) {
  (void)in;
  return axon_kernel_compute(in[0], in[1], out[0]);
}

extern "C" const char* axon_kernel_info() {
  return "{\n"
      "  \"kernel\": \"matmul\",\n"
      "  \"symbol\": \"axon_k_matmul\",\n"
      "  \"packed_symbol\": \"axon_kernel_packed\",\n"
      "  \"target\": \"x86-avx512\",\n"
      "  \"inputs\": [\n"
      "    {\"name\":\"a\",\"c_name\":\"axon_p_a\",\"dtype\":\"f32\",\"shape\":[9,5]},\n"
      "    {\"name\":\"b\",\"c_name\":\"axon_p_b\",\"dtype\":\"f32\",\"shape\":[5,37]}\n"
      "  ],\n"
      "  \"outputs\": [\n"
      "    {\"name\":\"out0\",\"c_name\":\"axon_out0\",\"dtype\":\"f32\",\"shape\":[9,37]}\n"
      "  ]\n"
      "}";
}
