// The torch binding of the sample's kernel: a CUDA tensor in, the per-block
// sums out, the phases recorded into the ptkit buffer whose kernel argument
// arrives as the bytes of Phases.arg_bytes.
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

#include <string>

#include "phases_kernel.h"

static torch::Tensor step(torch::Tensor x, int64_t rounds, const std::string &buf_bytes)
{
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.is_contiguous(),
                "x must be a contiguous float32 CUDA tensor");
    pt_dev_buf buf;
    TORCH_CHECK(phases_arg_from_bytes(buf_bytes.data(), buf_bytes.size(), &buf) == 0,
                "the buffer argument (", buf_bytes.size(), " bytes) is not Phases.arg_bytes of "
                "a buffer made for the three phases (", sizeof(pt_dev_buf), " bytes)");
    const int n = (int)x.numel();
    auto y = torch::empty({(n + PHASES_TILE - 1) / PHASES_TILE}, x.options());
    int rc = phases_launch(x.data_ptr<float>(), y.data_ptr<float>(), n, (int)rounds, buf,
                           at::cuda::getCurrentCUDAStream().stream());
    TORCH_CHECK(rc == 0, "phases_launch: CUDA error ", rc);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("step", &step, "three timed phases per block: gather, update, reduce");
}
