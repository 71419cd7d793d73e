/* led_optimizer: dense LED optimization by projected gradient descent, the
 * flow ptkit's users timed by hand before (optimize_frame with validation,
 * atb_calculation, optimization_loop, einsum_operation,
 * step_size_calculation, conversion), timed with sections that carry the
 * FLOPS and bytes of each step. Plain C, the host API only.
 *
 * The problem: a frame of P pixels x 3 channels is lit by L LEDs whose
 * diffusion patterns are the columns of A (P x L per channel). Find LED
 * values x in [0, 1] minimizing |A x - b|^2 per channel, with the dense
 * ATA = A^T A (L x L x 3) precomputed:
 *   gradient g = ATA x - A^T b          (einsum "ijk,jk->ik")
 *   step     a = (g.g) / (g.ATA.g)     (einsum "ik,ijk,jk->")
 *
 * usage: led_optimizer [frames] [output-directory] ("-" keeps 5 frames) */
#include <pt/pt.h>

#include "../sample_reports.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P = 4096, L = 256, C = 3, ITERS = 12 };

typedef struct problem {
    float *A;   /* P x L x C */
    float *ATA; /* L x L x C */
    float *b;   /* P x C */
    float *ATb; /* L x C */
    float *x, *g, *ATAg; /* L x C */
} problem;

static unsigned rng = 12345;
static float frand(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (float)(rng >> 8) / (float)(1u << 24);
}

static int setup(pt_timing *t, problem *p)
{
    PT_FUNC(t);
    p->A = malloc(sizeof(float) * P * L * C);
    p->ATA = calloc((size_t)L * L * C, sizeof(float));
    p->b = malloc(sizeof(float) * P * C);
    p->ATb = malloc(sizeof(float) * L * C);
    p->x = malloc(sizeof(float) * L * C);
    p->g = malloc(sizeof(float) * L * C);
    p->ATAg = malloc(sizeof(float) * L * C);
    if (!p->A || !p->ATA || !p->b || !p->ATb || !p->x || !p->g || !p->ATAg)
        return -1;
    /* Each LED lights a soft disc of pixels around its position. */
    for (int i = 0; i < P; i++)
        for (int j = 0; j < L; j++) {
            float d = (float)((i * 7 + j * 131) % P) / P;
            for (int k = 0; k < C; k++)
                p->A[((size_t)i * L + j) * C + k] = d < 0.05f ? (1 - d / 0.05f) * (0.8f + 0.2f * frand()) : 0;
        }
    PT_SECTION(t, "precompute_ATA", .flops = 2.0 * P * L * L * C,
               .read = sizeof(float) * (double)P * L * C, .written = sizeof(float) * (double)L * L * C) {
        for (int i = 0; i < P; i++)
            for (int j = 0; j < L; j++)
                for (int m = 0; m < L; m++)
                    for (int k = 0; k < C; k++)
                        p->ATA[((size_t)j * L + m) * C + k] +=
                            p->A[((size_t)i * L + j) * C + k] * p->A[((size_t)i * L + m) * C + k];
    }
    return 0;
}

static int validate(const float *frame)
{
    for (int i = 0; i < P * C; i++)
        if (!(frame[i] >= 0 && frame[i] <= 1))
            return -1;
    return 0;
}

/* g = ATA x - ATb: "ijk,jk->ik" over L x L x C, a multiply-add each. */
static void gradient(problem *p)
{
    for (int i = 0; i < L; i++)
        for (int k = 0; k < C; k++) {
            float s = 0;
            for (int j = 0; j < L; j++)
                s += p->ATA[((size_t)i * L + j) * C + k] * p->x[j * C + k];
            p->ATAg[i * C + k] = s;
            p->g[i * C + k] = s - p->ATb[i * C + k];
        }
}

static float step_size(problem *p)
{
    double gg = 0, gAg = 0;
    for (int i = 0; i < L * C; i++)
        gg += (double)p->g[i] * p->g[i];
    /* "ik,ijk,jk->": g^T ATA g, per channel, summed. */
    for (int i = 0; i < L; i++)
        for (int j = 0; j < L; j++)
            for (int k = 0; k < C; k++)
                gAg += (double)p->g[i * C + k] * p->ATA[((size_t)i * L + j) * C + k] * p->g[j * C + k];
    return gAg > 0 ? (float)(gg / gAg) : 0;
}

static double optimize_frame(pt_timing *t, problem *p, const float *frame, unsigned char *out)
{
    const double einsum_flops = 2.0 * L * L * C;
    const double step_flops = 3.0 * L * L * C + 2.0 * L * C;
    double residual = 0;

    pt_start(t, "optimize_frame");
    int invalid = 0;
    PT_SECTION(t, "validation", .read = sizeof(float) * P * C) {
        invalid = validate(frame) != 0;
    }
    if (invalid) {
        pt_stop(t, "optimize_frame");
        return -1;
    }
    PT_SECTION(t, "atb_calculation", .flops = 2.0 * P * L * C,
               .read = sizeof(float) * ((double)P * L * C + P * C), .written = sizeof(float) * L * C) {
        for (int j = 0; j < L; j++)
            for (int k = 0; k < C; k++) {
                float s = 0;
                for (int i = 0; i < P; i++)
                    s += p->A[((size_t)i * L + j) * C + k] * frame[i * C + k];
                p->ATb[j * C + k] = s;
            }
    }
    PT_SECTION(t, "initialization") {
        for (int i = 0; i < L * C; i++)
            p->x[i] = 0.5f;
    }
    pt_start(t, "optimization_loop", .flops = ITERS * (einsum_flops + step_flops));
    for (int it = 0; it < ITERS; it++) {
        PT_SECTION(t, "einsum_operation", .flops = einsum_flops,
                   .read = sizeof(float) * (double)L * L * C) {
            gradient(p);
        }
        float a = 0;
        PT_SECTION(t, "step_size_calculation", .flops = step_flops,
                   .read = sizeof(float) * (double)L * L * C) {
            a = step_size(p);
        }
        for (int i = 0; i < L * C; i++) {
            float v = p->x[i] - a * p->g[i];
            p->x[i] = v < 0 ? 0 : v > 1 ? 1 : v;
        }
    }
    pt_stop(t, "optimization_loop");
    PT_SECTION(t, "conversion", .written = L * C) {
        for (int i = 0; i < L * C; i++) {
            out[i] = (unsigned char)lrintf(p->x[i] * 255);
            residual += p->g[i] * p->g[i];
        }
    }
    pt_stop(t, "optimize_frame");
    return sqrt(residual);
}

int main(int argc, char **argv)
{
    int frames = argc > 1 && strcmp(argv[1], "-") != 0 ? atoi(argv[1]) : 5;
    const char *dir = argc > 2 ? argv[2] : ".";
    problem p;
    float *frame = malloc(sizeof(float) * P * C);
    unsigned char *leds = malloc(L * C);

    if (frames < 1 || !frame || !leds) {
        fprintf(stderr, "usage: led_optimizer [frames >= 1] [output-directory]\n");
        return 2;
    }
    pt_timing *t = pt_create("LED Optimization Module", PT_CPU | PT_TRACE);
    printf("CPU only: %d frames of %d pixels x %d channels onto %d LEDs\n", frames, P, C, L);
    if (setup(t, &p) != 0) {
        fprintf(stderr, "led_optimizer: out of memory\n");
        return 1;
    }
    for (int f = 0; f < frames; f++) {
        for (int i = 0; i < P * C; i++)
            frame[i] = 0.5f + 0.5f * sinf(0.001f * (float)(i * (f + 1)));
        double r = optimize_frame(t, &p, frame, leds);
        printf("frame %d: gradient norm %.4g, first LED %u\n", f, r, leds[0]);
    }
    putchar('\n');
    pt_log(t, stdout, .percentages = 1, .sort = PT_SORT_ORDER);
    putchar('\n');
    pt_log(t, stdout, .view = PT_VIEW_BOTTLENECKS, .top = 5);
    sample_write_reports(t, dir, "led_optimizer");
    pt_destroy(t);
    free(p.A); free(p.ATA); free(p.b); free(p.ATb); free(p.x); free(p.g); free(p.ATAg);
    free(frame);
    free(leds);
    return 0;
}
