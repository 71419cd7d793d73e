/** \file pt_mpi.h
 *  \brief Every MPI rank's tree gathered into rank 0's timing. Header-only
 *  and optional: only MPI programs include it (it includes <mpi.h>), and
 *  libptkit never links MPI.
 *
 *  \code
 *  pt_mpi_gather(t, MPI_COMM_WORLD);   // on every rank, before MPI_Finalize()
 *  if (rank == 0)
 *      pt_log(t, stdout);              // every rank's sections, merged by path
 *  \endcode */
#ifndef PT_PT_MPI_H
#define PT_PT_MPI_H

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>

#include <pt/pt.h>

PT__BEGIN_DECLS

/* An MPI call's failure described on t (with MPI_ERRORS_RETURN set; MPI's
 * default handler aborts the job before this is reached). */
static inline int pt__mpi_fail(pt_timing *t, const char *call, int err)
{
    char msg[MPI_MAX_ERROR_STRING + 64], why[MPI_MAX_ERROR_STRING];
    int n = 0;

    if (MPI_Error_string(err, why, &n) != MPI_SUCCESS)
        n = 0;
    why[n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1] = '\0';
    snprintf(msg, sizeof msg, "pt_mpi_gather: %s failed: %s", call, why);
    return pt__error(t, PT_EIO, msg);
}

/** \brief Gather every rank's tree into rank 0's timing, merged by path
 *  (see pt_unpack_merge(): counts and totals added, mean and deviation
 *  combined exactly, the first occurrence rank 0's own where it has one),
 *  keeping each rank's total of every section (pt_unpack_merge_rank()):
 *  rank 0's reports say how many ranks were merged and give each
 *  section's spread across them and its slowest rank.
 *  Collective: every rank of comm calls it, before MPI_Finalize(), with no
 *  thread timing into t. A rank with a NULL t, or whose tree cannot be
 *  packed, still takes part (sending nothing), so no rank waits for ever.
 *  The other ranks' timings are left as they are.
 *
 *  Protocol: each rank but 0 packs its tree (pt_pack()); rank 0 gathers
 *  the sizes (MPI_Gather), then the bytes (MPI_Gatherv), and merges them
 *  in rank order. Before each gather rank 0 broadcasts whether it could
 *  allocate what it receives into, so that a failure there ends the call
 *  on every rank instead of leaving them blocked.
 *
 *  \param t    this rank's timing; NULL takes part with an empty tree
 *  \param comm the communicator; its rank 0 receives
 *  \return on each rank its own outcome: 0; PT_EOPEN when its sections
 *  were open (packed without their running occurrences); on rank 0,
 *  PT_EPARSE or PT_ENOMEM when a rank's tree could not be merged (the
 *  others are), PT_ERANGE when the trees together exceed 2 GiB (none is
 *  merged); PT_ENOMEM; PT_EIO when an MPI call returns an error. Each is
 *  counted and described on t. */
static inline int pt_mpi_gather(pt_timing *t, MPI_Comm comm)
{
    int rank, size, err, ok = 1, rc = 0, r, mine = 0;
    int *sizes = NULL, *displs = NULL;
    void *buf = NULL;
    size_t len = 0;
    char *all = NULL;
    long long total = 0;

    if ((err = MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS)
        return pt__mpi_fail(t, "MPI_Comm_rank", err);
    if ((err = MPI_Comm_size(comm, &size)) != MPI_SUCCESS)
        return pt__mpi_fail(t, "MPI_Comm_size", err);

    if (rank != 0) {
        rc = pt_pack(t, &buf, &len);
        if (rc < 0 && rc != PT_EOPEN) {
            buf = NULL;
        } else if (len > INT_MAX) {
            rc = pt__error(t, PT_ERANGE, "pt_mpi_gather: this rank's tree is over 2 GiB; "
                                         "it is not sent");
            free(buf);
            buf = NULL;
        } else {
            mine = (int)len;
        }
    } else {
        sizes = (int *)malloc((size_t)size * sizeof *sizes);
        displs = (int *)malloc((size_t)size * sizeof *displs);
        if (!sizes || !displs) {
            ok = 0;
            rc = pt__error(t, PT_ENOMEM, "pt_mpi_gather: out of memory for the ranks' sizes");
        }
    }

    if ((err = MPI_Bcast(&ok, 1, MPI_INT, 0, comm)) != MPI_SUCCESS) {
        rc = pt__mpi_fail(t, "MPI_Bcast", err);
        goto out;
    }
    if (!ok)
        goto out;
    if ((err = MPI_Gather(&mine, 1, MPI_INT, sizes, 1, MPI_INT, 0, comm)) != MPI_SUCCESS) {
        rc = pt__mpi_fail(t, "MPI_Gather", err);
        goto out;
    }

    if (rank == 0) {
        for (r = 0; r < size; r++) {
            displs[r] = (int)total;
            total += sizes[r];
            if (total > INT_MAX)
                break;
        }
        if (total > INT_MAX) {
            ok = 0;
            rc = pt__error(t, PT_ERANGE, "pt_mpi_gather: the ranks' trees together exceed "
                                         "2 GiB; none is merged");
        } else if (!(all = (char *)malloc(total ? (size_t)total : 1))) {
            ok = 0;
            rc = pt__error(t, PT_ENOMEM, "pt_mpi_gather: out of memory for the ranks' trees");
        }
    }
    if ((err = MPI_Bcast(&ok, 1, MPI_INT, 0, comm)) != MPI_SUCCESS) {
        rc = pt__mpi_fail(t, "MPI_Bcast", err);
        goto out;
    }
    if (!ok)
        goto out;
    if ((err = MPI_Gatherv(buf, mine, MPI_BYTE, all, sizes, displs, MPI_BYTE, 0, comm)) !=
        MPI_SUCCESS) {
        rc = pt__mpi_fail(t, "MPI_Gatherv", err);
        goto out;
    }

    /* Rank 0's own tree is already in t; a size of 0 is a rank that sent
     * nothing (its own call returned why), counted as such. Each rank's
     * totals are kept, for the spread the reports show. */
    if (rank == 0)
        for (r = 1; r < size; r++) {
            int m = sizes[r] > 0
                        ? pt_unpack_merge_rank(t, all + displs[r], (size_t)sizes[r], r)
                        : pt_unpack_merge_rank(t, NULL, 0, r);
            if (m < 0 && rc == 0)
                rc = m;
        }
out:
    free(all);
    free(sizes);
    free(displs);
    free(buf);
    return rc;
}

PT__END_DECLS
#endif
