// What aiming an instantiated graph's kernel at other memory each replay costs.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <time.h>
static double now_s(void){struct timespec ts;clock_gettime(CLOCK_MONOTONIC,&ts);return ts.tv_sec+ts.tv_nsec*1e-9;}
__global__ void spin(long long ns, long long *rec){
  unsigned long long t0,t; asm volatile("mov.u64 %0, %%globaltimer;":"=l"(t0));
  do asm volatile("mov.u64 %0, %%globaltimer;":"=l"(t)); while((long long)(t-t0)<ns);
  if(threadIdx.x%32==0) rec[blockIdx.x*2+threadIdx.x/32]=(long long)(t-t0);
}
__device__ unsigned long long epoch;
__global__ void epoch_copy(const long long *a,const long long *b,const long long *c,long long *ring,int n,int sets){
  __shared__ unsigned long long e;
  if(threadIdx.x==0&&blockIdx.x==0){} 
  e = epoch; __syncthreads();
  long long *dst=ring+(e%sets)*3*n;
  for(int i=blockIdx.x*blockDim.x+threadIdx.x;i<n;i+=gridDim.x*blockDim.x){dst[i]=a[i];dst[n+i]=b[i];dst[2*n+i]=c[i];}
}
__global__ void epoch_bump(){ epoch++; }
enum{K=3,N=132*2,SETS=64};
int main(int argc,char**argv){
  int replays=1000; long long ns=20000;
  cudaStream_t st; cudaStreamCreateWithFlags(&st,cudaStreamNonBlocking);
  long long *rec; cudaMalloc(&rec,sizeof(long long)*N*K*(SETS+1));
  long long *ring; cudaMalloc(&ring,sizeof(long long)*N*K*SETS);
  long long nsv=ns; long long *ptr[K];
  void *args[K][2]; cudaKernelNodeParams kp[K]={};
  cudaGraph_t g[3]; cudaGraphNode_t node[K], prev=NULL;
  for(int v=0;v<3;v++){ cudaGraphCreate(&g[v],0); prev=NULL;
    for(int k=0;k<K;k++){ ptr[k]=rec+k*N; args[k][0]=&nsv; args[k][1]=&ptr[k];
      kp[k].func=(void*)spin; kp[k].gridDim=dim3(132); kp[k].blockDim=dim3(64); kp[k].kernelParams=args[k];
      cudaGraphNode_t nd; cudaGraphAddKernelNode(&nd,g[v],prev?&prev:NULL,prev?1:0,&kp[k]); prev=nd; if(v==0) node[k]=nd; }
    if(v>=1){ // epoch copy node then bump
      const long long *a=rec,*b=rec+N,*c=rec+2*N; long long *r=ring; int n=N,s=SETS;
      void *ea[]={&a,&b,&c,&r,&n,&s}; cudaKernelNodeParams ep={}; ep.func=(void*)epoch_copy;
      ep.gridDim=dim3(v==1?4:1); ep.blockDim=dim3(256); ep.kernelParams=ea; cudaGraphNode_t nd;
      cudaGraphAddKernelNode(&nd,g[v],&prev,1,&ep); prev=nd;
      cudaKernelNodeParams bp={}; bp.func=(void*)epoch_bump; bp.gridDim=dim3(1); bp.blockDim=dim3(1);
      void *ba[]={NULL}; bp.kernelParams=ba; cudaGraphAddKernelNode(&nd,g[v],&prev,1,&bp);
    }
  }
  cudaGraphExec_t ex, exe1, exe2, many[16];
  cudaGraphInstantiateWithFlags(&ex,g[0],0); cudaGraphInstantiateWithFlags(&exe1,g[1],0); cudaGraphInstantiateWithFlags(&exe2,g[2],0);
  for(int i=0;i<16;i++){ cudaGraphInstantiateWithFlags(&many[i],g[0],0);
    for(int k=0;k<K;k++){ long long *p=rec+(size_t)(1+i%SETS)*K*N+k*N; void *a2[2]={&nsv,&p}; cudaKernelNodeParams q=kp[k]; q.kernelParams=a2;
      cudaGraphNode_t en; cudaGraphExecKernelNodeSetParams(many[i],node[k],&q);} cudaGraphUpload(many[i],st);}
  const char *names[]={"bare","k0 same value each replay","k0 2 values","k0 16 values","3 kernels 16 values","3 kernels 16 values + back (ptkit)","3 kernels 64 values","epoch copy node 4 blocks + bump","epoch copy 1 block + bump","16 execs rotated","3 kernels 2 values","3 kernels 16 values every 8th replay only"};
  const int F=12; std::vector<double> tot[F], iss[F];
  cudaGraphUpload(ex,st); cudaStreamSynchronize(st);
  for(int r=0;r<4;r++) for(int f=0;f<F;f++){
    cudaStreamSynchronize(st); double t0=now_s();
    for(int i=0;i<replays;i++){
      cudaGraphExec_t e=ex;
      int vals= f==1?1: f==2?2: (f==6?64: f==10?2:16);
      int kk= (f>=1&&f<=3)?1:3;
      if((f>=1&&f<=6)||f==10||(f==11&&i%8==0)){
        for(int k=0;k<kk;k++){ long long *p=rec+(size_t)(1+(f==1?0:i%vals))*K*N+k*N; void *a2[2]={&nsv,&p}; cudaKernelNodeParams q=kp[k]; q.kernelParams=a2;
          cudaError_t er=cudaGraphExecKernelNodeSetParams(ex,node[k],&q); if(er){printf("setparams %s\n",cudaGetErrorString(er));return 1;} }
      }
      if(f==7) e=exe1; if(f==8) e=exe2; if(f==9) e=many[i%16];
      cudaGraphLaunch(e,st);
      if(f==5){ for(int k=0;k<K;k++){ long long *p=rec+k*N; void *a2[2]={&nsv,&p}; cudaKernelNodeParams q=kp[k]; q.kernelParams=a2; cudaGraphExecKernelNodeSetParams(ex,node[k],&q);} }
    }
    double t1=now_s(); cudaStreamSynchronize(st); double t2=now_s();
    if(r>0){ tot[f].push_back((t2-t0)*1e6/replays); iss[f].push_back((t1-t0)*1e6/replays); }
  }
  cudaError_t e=cudaGetLastError(); printf("graph_aim: %s; 3 spins of %lld ns, 132x64, %d replays, medians of 3\n",cudaGetErrorString(e),ns,replays);
  auto med=[](std::vector<double>v){std::sort(v.begin(),v.end());return v[v.size()/2];};
  double b=med(tot[0]);
  for(int f=0;f<F;f++) printf("%-45s %7.2f us a replay (%.4f of bare), issued in %6.2f us\n",names[f],med(tot[f]),med(tot[f])/b,med(iss[f]));
  // one SetParams call's host time with the exec idle vs with 50 replays queued
  std::vector<double> idle,busy;
  for(int r=0;r<20;r++){ cudaStreamSynchronize(st); long long *p=rec+(size_t)(1+r%16)*K*N; void *a2[2]={&nsv,&p}; cudaKernelNodeParams q=kp[0]; q.kernelParams=a2;
    double t0=now_s(); cudaGraphExecKernelNodeSetParams(ex,node[0],&q); idle.push_back((now_s()-t0)*1e6);
    for(int i=0;i<50;i++) cudaGraphLaunch(ex,st);
    p=rec+(size_t)(1+(r+1)%16)*K*N; t0=now_s(); cudaGraphExecKernelNodeSetParams(ex,node[0],&q); busy.push_back((now_s()-t0)*1e6); }
  printf("one cudaGraphExecKernelNodeSetParams: exec idle %.2f us, 50 replays queued %.2f us\n",med(idle),med(busy));
  cudaStreamSynchronize(st); printf("end: %s\n",cudaGetErrorString(cudaGetLastError()));
  return 0;
}
