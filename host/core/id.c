/* The calling thread's identity (model.h's struct pt__id): one word of
 * thread-local storage, set by the thread registry (threads.c) at the
 * thread's first section and read by the hot path and the report gate
 * (gate.c), which both sit below the registry. */
#include "core/model.h"

_Thread_local struct pt__id *pt__id_tls __attribute__((tls_model("initial-exec")));
