// Where a graph replay's host time goes: pt_graph_launch wrapped pieces.
#include <pt/pt.h>
#include <pt/pt_dev.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <time.h>
#include <vector>
#include <algorithm>
static double now_s(void){struct timespec ts;clock_gettime(CLOCK_MONOTONIC,&ts);return ts.tv_sec+ts.tv_nsec*1e-9;}
extern "C" {
double w_fold, w_foldin, w_start, w_stop, w_harvest; long n_fold, n_foldin, n_harvest;
struct pt__fold_src; struct pt_section;
int __real_pt__fold_apply(pt_timing *, const void *, double);
int __wrap_pt__fold_apply(pt_timing *t, const void *s, double l){double a=now_s();int r=__real_pt__fold_apply(t,s,l);w_fold+=now_s()-a;n_fold++;return r;}
int __real_pt__dev_fold_in(pt_timing *, pt_dev_records *, const char *, const char *, int, int);
int __wrap_pt__dev_fold_in(pt_timing *t, pt_dev_records *b, const char *x, const char *y, int m, int e){double a=now_s();int r=__real_pt__dev_fold_in(t,b,x,y,m,e);w_foldin+=now_s()-a;n_foldin++;return r;}
int __real_pt__start_gpu(pt_timing *, const char *, pt_stream, const pt_metrics *);
int __wrap_pt__start_gpu(pt_timing *t, const char *x, pt_stream s, const pt_metrics *m){double a=now_s();int r=__real_pt__start_gpu(t,x,s,m);w_start+=now_s()-a;return r;}
int __real_pt__stop_gpu(pt_timing *, const char *, pt_stream, const pt_metrics *);
int __wrap_pt__stop_gpu(pt_timing *t, const char *x, pt_stream s, const pt_metrics *m){double a=now_s();int r=__real_pt__stop_gpu(t,x,s,m);w_stop+=now_s()-a;return r;}
int __real_pt__queue_harvest(pt_timing *);
int __wrap_pt__queue_harvest(pt_timing *t){double a=now_s();int r=__real_pt__queue_harvest(t);w_harvest+=now_s()-a;n_harvest++;return r;}
}
__global__ void k(long long ns, pt_dev_buf buf)
{
    PT_DEV_BEGIN(buf);
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); while ((long long)(t - t0) < ns);
    PT_DEV_MARK(0);
    PT_DEV_END(buf);
}
int main()
{
    cudaStream_t st; cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    pt_timing *gt = pt_create("graph", PT_GPU_EVENTS);
    const char *titles[3] = {"k0","k1","k2"};
    pt_dev_records *r[3];
    for (int i=0;i<3;i++) r[i]=pt_dev_records_create(gt,132,1,NULL,0,0);
    cudaGraph_t g; cudaGraphExec_t ex;
    cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal);
    for (int i=0;i<3;i++) PT_LAUNCH(gt, titles[i], r[i], k, 132, 64, 0, (pt_stream)st, 20000LL);
    cudaStreamEndCapture(st,&g); cudaGraphInstantiateWithFlags(&ex,g,0);
    pt_graph *pg = pt_graph_capture_end(gt,(pt_stream)st);
    for (int round=0; round<4; round++) {
        w_fold=w_foldin=w_start=w_stop=w_harvest=0; n_fold=n_foldin=n_harvest=0;
        const int N=1000; double a=now_s(), gl=0;
        for (int i=0;i<N;i++) { pt_graph_launch(gt,pg,"step",ex,(pt_stream)st); }
        double issue=now_s()-a; cudaStreamSynchronize(st); pt_sync(gt); double tot=now_s()-a;
        // a loop of bare fold-free graph launches for the API's own cost
        double b=now_s(); for (int i=0;i<N;i++){ double c=now_s(); cudaGraphLaunch(ex,st); gl+=now_s()-c; } cudaStreamSynchronize(st); double bare=now_s()-b;
        printf("round %d: per replay: issue %.1f us, end to end %.1f us; start_gpu %.1f, stop_gpu %.1f, fold_in %.1f (x%.1f), of which harvest %.1f (x%.1f), fold math %.1f (x%.2f per replay, %.1f us each); bare launch call %.1f us, bare replay %.1f us\n",
               round, issue*1e6/N, tot*1e6/N, w_start*1e6/N, w_stop*1e6/N, w_foldin*1e6/N, (double)n_foldin/N, w_harvest*1e6/N, (double)n_harvest/N, w_fold*1e6/N, (double)n_fold/N, n_fold? w_fold*1e6/n_fold:0, gl*1e6/N, bare*1e6/N);
    }
    printf("errors %d: %s\n", pt_error_count(gt), pt_last_error(gt));
    pt_graph_free(pg); for(int i=0;i<3;i++) pt_dev_records_free(r[i]); pt_destroy(gt);
    return 0;
}
