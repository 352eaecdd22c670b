/*
 * What a Kubernetes manifest is read into (pod.h: pod_read): its NCCL_*
 * variables, each with where its value comes from, and the notes `check`
 * says of them; and the look-ups on it (pod_cfg.c). Plain data, filled in
 * by the files that collect the variables (pod_env.c, pod_mpirun.c).
 */
#ifndef ROCESIM_POD_CFG_H
#define ROCESIM_POD_CFG_H

#include <stddef.h>

/* Where a variable's value comes from. */
enum pod_src {
	POD_SRC_VALUE,	  /* env[].value */
	POD_SRC_CM_KEY,	  /* env[].valueFrom.configMapKeyRef, a ConfigMap of the file */
	POD_SRC_ENV_FROM, /* envFrom[].configMapRef, a ConfigMap of the file */
	POD_SRC_RUN_TIME, /* valueFrom not known here (Secret, field, ConfigMap not given) */
	POD_SRC_MPIRUN,	  /* mpirun -x in a container's command or args: every rank's */
};

struct pod_env {
	char name[64];
	char value[256];
	int line; /* in the workload: the env entry, or the envFrom source */
	char container[64];
	/* set at run time, unknown here: value "", or for POD_SRC_MPIRUN the
	 * unexpanded text ("$TIMEOUT"), said as it is and never used */
	int value_from;
	char replica[64]; /* replica type (Master, Launcher, ...) or replicatedJob; "" */
	unsigned ctr;	  /* the container, numbered from 0 across the workload */
	enum pod_src src;
	char from[128]; /* the ConfigMap or Secret (and key), "fieldRef", ...; "" */
	int src_line;	/* where the value is written: @line, or the ConfigMap's line */
};

/* What `check` warns about; each names the line in the file. */
enum pod_note_kind {
	POD_NOTE_CONFLICT,   /* containers give two values of a variable the model reads */
	POD_NOTE_NOT_GIVEN,  /* a ConfigMap (or its key) that the file does not hold */
	POD_NOTE_SECRET,     /* a Secret: never read */
	POD_NOTE_UNKNOWN,    /* an NCCL_* name NCCL does not read (a typo) */
	POD_NOTE_OVERRIDDEN, /* a container's value that mpirun -x replaces */
};

struct pod_note {
	enum pod_note_kind kind;
	int line;
	char what[96]; /* the variable or the source, for the finding's "where" */
	char msg[480];
	unsigned more;	  /* the same note in as many more containers (msg says so) */
	const char *code; /* for `check`: NCCL_ENV_CONFLICT, NCCL_ENV_NOT_GIVEN, NCCL_ENV_SECRET,
			     NCCL_ENV_UNKNOWN, NCCL_ENV_OVERRIDDEN */
};

struct pod_cfg {
	char file[256];
	char kind[32];	     /* Pod, Deployment, ..., PyTorchJob, MPIJob, JobSet, List */
	struct pod_env *env; /* NCCL_* variables only, in file order (of @line) */
	size_t n;
	int doc;		/* 1-based document of the file that was read */
	size_t n_env_from;	/* envFrom sources not read: they may set NCCL_* not seen here */
	struct pod_note *notes; /* in file order */
	size_t n_notes;
	unsigned n_ctr; /* containers read (init containers included) */
};

/* The last definition of @name, or NULL: what mpirun -x exports (the last
 * in the file), else within a container the one Kubernetes gives it, across
 * containers the last in the file. */
const struct pod_env *pod_get(const struct pod_cfg *p, const char *name);
/*
 * NCCL_IB_DISABLE, when it turns RDMA off: set (not from a Secret or
 * ConfigMap) to a non-zero integer, as NCCL reads it (strtoll, base 0; a
 * value that is not a number leaves NCCL's default, 0). NULL otherwise.
 * What that means, for messages: POD_IB_DISABLED_WHY.
 */
const struct pod_env *pod_ib_disabled(const struct pod_cfg *p);
#define POD_IB_DISABLED_WHY                                                                        \
	"NCCL does not use RDMA at all (it falls back to TCP sockets): none of this "              \
	"fabric's RoCE settings apply to the job"
void pod_free(struct pod_cfg *p);

#endif
