/* The corpus of tests/kernels/corpus/: kernels of public projects rebuilt
 * in their shape, each with the block size and dynamic shared memory its
 * project launches it with, and the occupancy a block of it allows.
 * Shared by the corpus test (tests/corpus.c) and bench-static. */
#ifndef PT_TEST_CORPUS_H
#define PT_TEST_CORPUS_H

typedef struct corpus_kernel {
    const char *file;   /* tests/kernels/corpus/<file>.cu */
    const char *entry;
    const char *after;  /* the project's kernel it is shaped after */
    int threads;        /* a block's threads, as launched there */
    int dyn_smem;       /* bytes of dynamic shared memory a block */
} corpus_kernel;

static const corpus_kernel corpus[] = {
    { "matmul_tiled", "corpus_matmul_tiled", "cuda-samples matrixMul (BSD-3-Clause)", 1024, 0 },
    /* Bc = Br = 32, d = 64: Q, K, V tiles and the 32 x 32 scores. */
    { "flash_fwd", "corpus_flash_fwd", "flash-attention-minimal forward (Apache-2.0)", 32,
      (3 * 32 * 64 + 32 * 32) * 4 },
    { "softmax_fwd", "corpus_softmax_fwd", "llm.c softmax_forward_kernel2 (MIT)", 256, 256 * 4 },
    { "reduce_early", "corpus_reduce_early", "cuda-samples reduction (BSD-3-Clause)", 256, 0 },
    { "layernorm_fwd", "corpus_layernorm_fwd", "llm.c layernorm_forward_kernel3 (MIT)", 256, 0 },
    { "sgemm_blocktile", "corpus_sgemm_8x8", "SGEMM_CUDA 2D block tiling, 8x8 (MIT)", 256, 0 },
    { "sgemm_blocktile", "corpus_sgemm_16x8", "SGEMM_CUDA 2D block tiling, 16x8 (MIT)", 128, 0 },
    { "jacobi_loop", "corpus_jacobi_loop", "cuda-samples jacobiCudaGraphs (BSD-3-Clause)", 1024, 0 },
    { "cg_helpers", "corpus_cg_helpers", "cuda-samples conjugateGradient (BSD-3-Clause)", 512, 0 },
};
#define CORPUS_N ((int)(sizeof corpus / sizeof corpus[0]))

/* Registers a thread is given: ptxas's count rounded up to 8 (256 a warp). */
static inline int corpus_alloc(int regs)
{
    return (regs + 7) / 8 * 8;
}

/* The warps an SM of sm_<arch> (80 or 90) holds of blocks of `threads`
 * threads using `regs` registers a thread and `smem` bytes of shared
 * memory a block: 64 warps, 32 blocks, 65,536 registers given a warp in
 * units of 256, and 164 KB (sm_80) or 228 KB (sm_90) of shared memory
 * with 1 KB reserved a block. */
static inline int corpus_warps(int regs, int threads, int smem, int arch)
{
    int warps = (threads + 31) / 32, blocks = 32;
    int by_warps = 64 / warps, by_regs = 65536 / (corpus_alloc(regs) * 32) / warps;
    int smem_sm = (arch >= 90 ? 228 : 164) * 1024;
    int by_smem = smem > 0 ? smem_sm / (smem + 1024) : blocks;
    if (by_warps < blocks)
        blocks = by_warps;
    if (by_regs < blocks)
        blocks = by_regs;
    if (by_smem < blocks)
        blocks = by_smem;
    return blocks * warps;
}

#endif
