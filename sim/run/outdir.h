/*
 * outdir: the output folder of one run. A run owns the folder's outputs:
 *
 *   - it takes a lock first (fcntl on OUTDIR/.rocesim.lock, a file kept
 *     there), so a second run into the same folder is refused at once;
 *   - under the lock it removes the temporaries of runs that were killed
 *     (".NAME.XXXXXX" for each NAME below, and "NAME.tmp" of earlier
 *     versions);
 *   - it writes every output under a unique temporary name in the folder
 *     (mkstemp), created before the simulation so that a folder that cannot
 *     be written is found before any time is spent;
 *   - only when every file is complete and on disk (flushed, fsync'ed) does
 *     it rename them into place and remove the outputs it did not write
 *     this time, so the folder never mixes the files of two runs: an
 *     interrupted run, a failed write or a full disk leaves the previous
 *     outputs whole.
 *
 * The names a run owns: its outputs results.json, timeseries.csv,
 * qp_rates.csv, pfc_events.csv, and the pictures `rocesim plot` draws from
 * them ({queues,pfc,rates,flows,ranks}.{png,svg}), which no longer match
 * once the outputs are replaced. Any other file in the folder is the user's
 * and is never touched.
 */
#ifndef ROCESIM_OUTDIR_H
#define ROCESIM_OUTDIR_H

#include <stdio.h>
#include <sys/types.h>

#define OUTDIR_LOCK ".rocesim.lock"
#define OUTDIR_PATH 4096

/* The files a run writes. */
enum outdir_file {
	OUTDIR_RESULTS,	   /* results.json */
	OUTDIR_TIMESERIES, /* timeseries.csv */
	OUTDIR_QP_RATES,   /* qp_rates.csv */
	OUTDIR_PFC_EVENTS, /* pfc_events.csv */
	OUTDIR_TIMELINE,   /* timeline.csv */
	OUTDIR_FILES
};

struct outdir {
	char dir[OUTDIR_PATH];
	char where[OUTDIR_PATH + 64]; /* the path an error is about */
	pid_t holder;		      /* -EBUSY: the process holding the lock, or 0 */
	int lock_fd;
	mode_t mode; /* of the outputs: 0666 less the umask */
	/* set after outdir_open: the outputs and the folder are not fsync'ed
	 * (a sweep's run: the sweep syncs its folder once, at its end) */
	int nosync;
	struct {
		char tmp[OUTDIR_PATH + 64];
		FILE *f;
	} out[OUTDIR_FILES];
};

/*
 * Create @dir (and its parents) if needed, lock it and remove the
 * temporaries of killed runs. Returns 0, -EBUSY when another process holds
 * the lock (@o->holder says which), or a negative errno with @o->where the
 * path that failed. outdir_close() in every case.
 */
int outdir_open(struct outdir *o, const char *dir);
/*
 * A new temporary file that becomes @which at outdir_commit(). Returns the
 * stream (owned by @o), or NULL with errno set and @o->where the folder.
 */
FILE *outdir_create(struct outdir *o, enum outdir_file which);
/*
 * Finish every file outdir_create() gave (flush, check for write errors,
 * fsync, close), and only when all are complete rename them into place and
 * remove the owned names not written this time. Returns 0, or a negative
 * errno with @o->where the file that failed; the previous outputs are then
 * left as they were unless the failure came in the renames themselves
 * (*@partial set).
 */
int outdir_commit(struct outdir *o, int *partial);
/* Remove the temporaries not committed, release the lock. */
void outdir_close(struct outdir *o);

/*
 * The folder of a run given no -o: out/@name, and for a run changed by
 * overlays (@withs) or --set overrides (@sets), out/@name+TAG, TAG naming
 * each change in order ("+tight" for --with tight.yaml, "+seed=3",
 * "+nic.dcqcn.rp_gd=7"), characters other than letters, digits and
 * ".,=-_" written '_', so that a what-if never replaces the results of the
 * scenario as it is. A TAG over 80 characters keeps its first 64 and ends
 * with "+" and 8 hex digits of the SHA-256 of the whole TAG. Into @buf of
 * OUTDIR_PATH bytes; 0, or -ENAMETOOLONG.
 */
int outdir_default(char *buf, const char *name, const char *const *withs, size_t n_withs,
		   const char *const *sets, size_t n_sets);

#endif
