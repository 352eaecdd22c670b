/* nccl-tests' command line, sizes and results table (see nccl_tests.h). */
#include "sim/readers/nccl_tests.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define NT_WORDS 512 /* the most words of a command */
#define NT_WORD 512  /* the longest word */

static const char *const nt_colls[] = {
    [NCCL_TESTS_ALL_REDUCE] = "all_reduce",
    [NCCL_TESTS_ALL_GATHER] = "all_gather",
    [NCCL_TESTS_REDUCE_SCATTER] = "reduce_scatter",
    [NCCL_TESTS_ALLTOALL] = "alltoall",
    [NCCL_TESTS_BROADCAST] = "broadcast",
    [NCCL_TESTS_REDUCE] = "reduce",
    [NCCL_TESTS_SENDRECV] = "sendrecv",
};

/* nccl-tests' other binaries (src/Makefile BIN_FILES_LIST), not modelled */
static const char *const nt_others[] = {"alltoallv", "scatter", "gather", "hypercube"};

/* test_typenames and wordSize of src/common.cu and common.h */
static const struct {
	const char *name;
	uint32_t size;
} nt_types[] = {
    {"int8", 1}, {"uint8", 1}, {"int32", 4},  {"uint32", 4},   {"int64", 8},  {"uint64", 8},
    {"half", 2}, {"float", 4}, {"double", 8}, {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1},
};

static const char *const nt_ops[] = {"sum", "prod", "max", "min", "avg", "mulsum"};

const char *nccl_tests_coll_name(enum nccl_tests_coll coll)
{
	return (unsigned)coll < sizeof(nt_colls) / sizeof(nt_colls[0]) ? nt_colls[coll] : "?";
}

/* ---- the options ------------------------------------------------------------------- */

enum nt_kind { NT_SIZE, NT_INT, NT_FACTOR, NT_TYPE, NT_OP, NT_FILE, NT_HELP };

/* getopt_long's longopts of common.cu, with what each value may be */
static const struct nt_opt {
	char s;
	const char *l;
	enum nt_kind kind;
	size_t off; /* of the field in struct nccl_tests_cmd */
	int32_t min, max;
	int unmodelled;
} nt_opts[] = {
#define I(s, l, f, min, max, u)                                                                    \
	{                                                                                          \
		s, l, NT_INT, offsetof(struct nccl_tests_cmd, f), min, max, u                      \
	}
    I('t', "nthreads", nthreads, 1, INT32_MAX, 1),
    I('g', "ngpus", ngpus, 1, INT32_MAX, 1),
    {'b', "minbytes", NT_SIZE, offsetof(struct nccl_tests_cmd, minbytes), 0, 0, 0},
    {'e', "maxbytes", NT_SIZE, offsetof(struct nccl_tests_cmd, maxbytes), 0, 0, 0},
    {'i', "stepbytes", NT_SIZE, offsetof(struct nccl_tests_cmd, stepbytes), 0, 0, 0},
    {'f', "stepfactor", NT_FACTOR, offsetof(struct nccl_tests_cmd, stepfactor), 0, 0, 0},
    I('n', "iters", iters, 1, INT32_MAX, 0),
    I('m', "agg_iters", agg_iters, 1, INT32_MAX, 1),
    I('w', "warmup_iters", warmup_iters, 0, INT32_MAX, 0),
    I('N', "run_cycles", run_cycles, 0, INT32_MAX, 1),
    I('p', "parallel_init", parallel_init, 0, 1, 1),
    I('c', "check", check, 0, INT32_MAX, 1),
    {'o', "op", NT_OP, 0, 0, 0, 0},
    {'d', "datatype", NT_TYPE, 0, 0, 0, 0},
    I('r', "root", root, 0, INT32_MAX, 0),
    I('z', "blocking", blocking, 0, 3, 1),
    I('y', "stream_null", stream_null, 0, 1, 1),
    I('T', "timeout", timeout, 0, INT32_MAX, 1),
    I('G', "cudagraph", cudagraph, 0, INT32_MAX, 1),
    I('C', "report_cputime", report_cputime, 0, 1, 1),
    I('S', "report_timestamps", report_timestamps, 0, 1, 1),
    {'J', "output_file", NT_FILE, 0, 0, 0, 1},
    I('a', "average", average, 0, 3, 1),
    I('R', "local_register", local_register, 0, 2, 1),
    I('x', "cta_policy", cta_policy, 0, 2, 1),
    I('D', "device_implementation", device_implementation, 0, INT32_MAX, 1),
    I('V', "device_cta_count", device_cta_count, 1, 128, 1),
    I('M', "memory", memory, 0, 1, 1),
    I('u', "unalign", unalign, 0, INT32_MAX, 1),
    I('I', "per_iter_timing", per_iter_timing, 0, 1, 1),
    I('K', "per_iter_skip", per_iter_skip, 0, INT32_MAX, 1),
    {'h', "help", NT_HELP, 0, 0, 0, 0},
#undef I
};

#define NT_N_OPTS (sizeof(nt_opts) / sizeof(nt_opts[0]))

/* A size as parsesize reads it (nccl_tests.h) into @v; -1 if not one. */
static int nt_size(const char *s, uint64_t *v)
{
	double x, units = 1;
	char *e;

	x = strtod(s, &e);
	if (e == s)
		return -1;
	while (*e == ' ' || *e == '\t' || *e == '\n')
		e++;
	switch (*e) {
	case '\0':
		break;
	case 'G':
	case 'g':
		units = 1024.0 * 1024 * 1024;
		break;
	case 'M':
	case 'm':
		units = 1024.0 * 1024;
		break;
	case 'K':
	case 'k':
		units = 1024;
		break;
	default:
		return -1;
	}
	x *= units;
	if (!(x >= 0) || x >= 9223372036854775808.0)
		return -1;
	*v = (uint64_t)x;
	return 0;
}

/* An integer as strtol(s, NULL, 0) reads it, wholly, into @v. */
static int nt_int(const char *s, long min, long max, long *v)
{
	char *e;

	errno = 0;
	*v = strtol(s, &e, 0);
	return e == s || *e || errno || *v < min || *v > max ? -1 : 0;
}

/* Add "-X value" to @c->unmodelled ("-X" alone for a value of more than
 * 40 characters, an output file's path). */
static void nt_unmodelled(struct nccl_tests_cmd *c, char s, const char *value)
{
	size_t have = strlen(c->unmodelled), room = sizeof(c->unmodelled) - 5;
	char item[64];

	if (have >= 3 && !strcmp(c->unmodelled + have - 3, "..."))
		return;
	snprintf(item, sizeof(item), "%s-%c%s%s", have ? " " : "", s, strlen(value) > 40 ? "" : " ",
		 strlen(value) > 40 ? "" : value);
	if (have + strlen(item) > room)
		strcpy(c->unmodelled + have, have ? " ..." : "...");
	else
		strcpy(c->unmodelled + have, item);
}

/* Option @o with value @v into @c; -EINVAL with @d set. */
static int nt_set(const struct nt_opt *o, const char *v, const char *key, struct nccl_tests_cmd *c,
		  struct diag *d)
{
	char *base = (char *)c;
	long l;
	size_t i;

	switch (o->kind) {
	case NT_SIZE:
		if (nt_size(v, (uint64_t *)(base + o->off))) {
			diag_set(d, "", 0, key,
				 "-%c (--%s) \"%s\" is not a size (bytes, or with K, M or G: "
				 "powers of 1024)",
				 o->s, o->l, v);
			return -EINVAL;
		}
		return 0;
	case NT_FACTOR:
		if (nt_int(v, 0, 1L << 30, &l)) {
			diag_set(d, "", 0, key, "-f (--stepfactor) \"%s\" is not a whole factor",
				 v);
			return -EINVAL;
		}
		c->stepfactor = (uint64_t)l;
		return 0;
	case NT_INT:
		if (nt_int(v, o->min, o->max, &l)) {
			diag_set(d, "", 0, key,
				 "-%c (--%s) \"%s\" is not a whole number %" PRId32 "..%" PRId32,
				 o->s, o->l, v, o->min, o->max);
			return -EINVAL;
		}
		*(int32_t *)(base + o->off) = (int32_t)l;
		break;
	case NT_TYPE:
		for (i = 0; i < sizeof(nt_types) / sizeof(nt_types[0]); i++)
			if (!strcmp(v, nt_types[i].name))
				break;
		if (i == sizeof(nt_types) / sizeof(nt_types[0])) {
			diag_set(d, "", 0, key,
				 "-d (--datatype) \"%s\" is not one type (int8, uint8, int32, "
				 "uint32, int64, uint64, half, float, double, bfloat16, f8e4m3, "
				 "f8e5m2)%s",
				 v, strcmp(v, "all") ? "" : ": \"all\" runs every type in turn");
			return -EINVAL;
		}
		strcpy(c->type, nt_types[i].name);
		c->elt_size = nt_types[i].size;
		return 0;
	case NT_OP:
		for (i = 0; i < sizeof(nt_ops) / sizeof(nt_ops[0]); i++)
			if (!strcmp(v, nt_ops[i]))
				break;
		if (i == sizeof(nt_ops) / sizeof(nt_ops[0])) {
			diag_set(d, "", 0, key,
				 "-o (--op) \"%s\" is not one operation (sum, prod, max, min, avg, "
				 "mulsum)%s",
				 v, strcmp(v, "all") ? "" : ": \"all\" runs every one in turn");
			return -EINVAL;
		}
		strcpy(c->op, nt_ops[i]);
		return 0;
	case NT_FILE:
		if (strlen(v) >= sizeof(c->output_file)) {
			diag_set(d, "", 0, key, "-J (--output_file): path too long");
			return -EINVAL;
		}
		strcpy(c->output_file, v);
		break;
	case NT_HELP:
		break;
	}
	if (o->unmodelled)
		nt_unmodelled(c, o->s, v);
	return 0;
}

/* The option of long name @name (@len characters): exact, or the one it
 * is a prefix of; NULL with @d set. */
static const struct nt_opt *nt_long(const char *name, size_t len, const char *key, struct diag *d)
{
	const struct nt_opt *found = NULL;
	int n = 0;

	for (size_t i = 0; i < NT_N_OPTS; i++) {
		if (strncmp(nt_opts[i].l, name, len))
			continue;
		if (strlen(nt_opts[i].l) == len)
			return &nt_opts[i];
		found = &nt_opts[i];
		n++;
	}
	if (n == 1 && len)
		return found;
	diag_set(d, "", 0, key, "--%.*s is %s option of nccl-tests", (int)len, name,
		 n > 1 && len ? "an ambiguous" : "not an");
	return NULL;
}

/* ---- the words of the command ------------------------------------------------------ */

/* Split @cmd into words in @buf (@size bytes), pointed to by @w (room for
 * NT_WORDS); their count, or -1 with @d set. */
static int nt_split(const char *cmd, const char *key, char *buf, size_t size, char **w,
		    struct diag *d)
{
	size_t o = 0;
	int n = 0, in = 0;
	char q = 0;

	for (const char *p = cmd;; p++) {
		char ch = *p;

		if (!ch && q) {
			diag_set(d, "", 0, key, "a %c quote is not closed", q);
			return -1;
		}
		if (!q && (!ch || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r')) {
			if (in) {
				buf[o++] = '\0';
				in = 0;
			}
			if (!ch)
				return n;
			continue;
		}
		if (!in) {
			if (n == NT_WORDS) {
				diag_set(d, "", 0, key, "more than %d words", NT_WORDS);
				return -1;
			}
			w[n++] = buf + o;
			in = 1;
		}
		if (q && ch == q) {
			q = 0;
			continue;
		}
		if (!q && (ch == '\'' || ch == '"')) {
			q = ch;
			continue;
		}
		if (ch == '\\' && q != '\'' && p[1]) {
			ch = *++p;
			if (ch == '\n')
				continue;
		}
		if (o + 2 >= size) {
			diag_set(d, "", 0, key, "command too long");
			return -1;
		}
		buf[o++] = ch;
	}
}

/* The collective of binary path @word; 0, 1 when it names none, -1 with
 * @d set for a binary not modelled. */
static int nt_binary(const char *word, const char *key, struct nccl_tests_cmd *c, struct diag *d)
{
	const char *name = strrchr(word, '/');
	char perf[40];

	name = name ? name + 1 : word;
	for (size_t i = 0; i < sizeof(nt_colls) / sizeof(nt_colls[0]); i++) {
		snprintf(perf, sizeof(perf), "%s_perf", nt_colls[i]);
		if (strncmp(name, perf, strlen(perf)))
			continue;
		if (strlen(name) >= sizeof(c->binary)) {
			diag_set(d, "", 0, key, "binary name \"%s\" too long", name);
			return -1;
		}
		c->coll = (enum nccl_tests_coll)i;
		strcpy(c->binary, name);
		return 0;
	}
	for (size_t i = 0; i < sizeof(nt_others) / sizeof(nt_others[0]); i++) {
		snprintf(perf, sizeof(perf), "%s_perf", nt_others[i]);
		if (!strncmp(name, perf, strlen(perf))) {
			diag_set(d, "", 0, key,
				 "%s: not modelled (all_reduce_perf, all_gather_perf, "
				 "reduce_scatter_perf, alltoall_perf, broadcast_perf, reduce_perf, "
				 "sendrecv_perf are)",
				 name);
			return -1;
		}
	}
	return 1;
}

/* How many sizes @c runs; -1 when the step never ends. */
static long nt_count_sizes(const struct nccl_tests_cmd *c)
{
	uint64_t s = c->minbytes;
	long n = 0;

	if (c->stepfactor > 1 ? s == 0 : c->stepbytes == 0)
		return -1;
	while (s <= c->maxbytes && n <= NCCL_TESTS_MAX_SIZES) {
		uint64_t next = c->stepfactor > 1 ? s * c->stepfactor : s + c->stepbytes;

		n++;
		if (c->stepfactor > 1 ? next / c->stepfactor != s : next < s)
			break; /* past 2^64: the next size would be past maxbytes */
		s = next;
	}
	return n;
}

/* The options after the binary, @w[0..@n), into @c; -EINVAL with @d. */
static int nt_options(char **w, int n, const char *key, struct nccl_tests_cmd *c, struct diag *d)
{
	for (int i = 0; i < n; i++) {
		const struct nt_opt *o = NULL;
		const char *v = NULL, *a = w[i];

		if (a[0] != '-' || !a[1]) {
			diag_set(d, "", 0, key, "\"%s\" is not an option of nccl-tests", a);
			return -EINVAL;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');

			o = nt_long(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2), key, d);
			if (!o)
				return -EINVAL;
			v = eq ? eq + 1 : NULL;
		} else {
			for (size_t k = 0; k < NT_N_OPTS; k++)
				if (nt_opts[k].s == a[1])
					o = &nt_opts[k];
			if (!o) {
				diag_set(d, "", 0, key, "-%c is not an option of nccl-tests", a[1]);
				return -EINVAL;
			}
			v = a[2] ? a + 2 : NULL;
		}
		if (o->kind == NT_HELP) {
			diag_set(d, "", 0, key,
				 "-h (--help): nccl-tests prints its usage and runs "
				 "nothing");
			return -EINVAL;
		}
		if (!v) {
			if (i + 1 == n) {
				diag_set(d, "", 0, key, "-%c (--%s) without its value", o->s, o->l);
				return -EINVAL;
			}
			v = w[++i];
		}
		if (nt_set(o, v, key, c, d))
			return -EINVAL;
	}
	return 0;
}

int nccl_tests_parse_command(const char *cmd, const char *key, struct nccl_tests_cmd *out,
			     struct diag *d)
{
	size_t size = strlen(cmd) + 2;
	char *buf, **w;
	int n, i, err = -EINVAL;
	long sizes;

	*out = (struct nccl_tests_cmd){
	    .minbytes = 32u << 20,
	    .maxbytes = 32u << 20,
	    .stepbytes = 1u << 20,
	    .stepfactor = 1,
	    .iters = 20,
	    .warmup_iters = 1,
	    .agg_iters = 1,
	    .type = "float",
	    .elt_size = 4,
	    .op = "sum",
	    .nthreads = 1,
	    .ngpus = 1,
	    .check = 1,
	    .run_cycles = 1,
	    .average = 1,
	    .cta_policy = -1,
	    .device_cta_count = 16,
	};
	if (size > NT_WORDS * NT_WORD) {
		diag_set(d, "", 0, key, "command too long");
		return -EINVAL;
	}
	buf = malloc(size);
	w = malloc(NT_WORDS * sizeof(*w));
	if (!buf || !w) {
		err = -ENOMEM;
		goto out;
	}
	n = nt_split(cmd, key, buf, size, w, d);
	if (n < 0)
		goto out;
	for (i = 0; i < n; i++) {
		int r = nt_binary(w[i], key, out, d);

		if (r < 0)
			goto out;
		if (!r)
			break;
	}
	if (i == n) {
		diag_set(d, "", 0, key,
			 "no nccl-tests binary (all_reduce_perf, all_gather_perf, "
			 "reduce_scatter_perf, alltoall_perf, broadcast_perf, reduce_perf, "
			 "sendrecv_perf)");
		goto out;
	}
	if (nt_options(w + i + 1, n - i - 1, key, out, d))
		goto out;
	if (out->minbytes > out->maxbytes) {
		diag_set(d, "", 0, key, "minbytes %" PRIu64 " above maxbytes %" PRIu64,
			 out->minbytes, out->maxbytes);
		goto out;
	}
	if (out->device_implementation > 0 && out->local_register != 2) {
		/* common.cu refuses it before running anything */
		diag_set(d, "", 0, key, "-D (--device_implementation) %" PRId32 " needs -R 2",
			 out->device_implementation);
		goto out;
	}
	sizes = nt_count_sizes(out);
	if (sizes < 0) {
		diag_set(d, "", 0, key, "%s: the sizes never end",
			 out->stepfactor > 1 ? "-f from 0 bytes" : "-i 0");
		goto out;
	}
	if (sizes > NCCL_TESTS_MAX_SIZES) {
		diag_set(d, "", 0, key, "more than %d sizes", NCCL_TESTS_MAX_SIZES);
		goto out;
	}
	err = 0;
out:
	free(buf);
	free(w);
	return err;
}

/* ---- sizes and bandwidths ---------------------------------------------------------- */

/* Whether @coll runs a count a rank (GetCollByteCount: count / nranks). */
static int nt_per_rank(enum nccl_tests_coll coll)
{
	return coll == NCCL_TESTS_ALL_GATHER || coll == NCCL_TESTS_REDUCE_SCATTER ||
	       coll == NCCL_TESTS_ALLTOALL;
}

int nccl_tests_sizes(const struct nccl_tests_cmd *c, uint32_t n_ranks, const char *key,
		     struct nccl_tests_row **rows, size_t *n, struct diag *d)
{
	long count = nt_count_sizes(c);
	uint64_t s = c->minbytes;

	*rows = NULL;
	*n = 0;
	if (!n_ranks) {
		diag_set(d, "", 0, key, "%s over no rank", c->binary);
		return -EINVAL;
	}
	if ((c->coll == NCCL_TESTS_BROADCAST || c->coll == NCCL_TESTS_REDUCE) &&
	    (uint32_t)c->root >= n_ranks) {
		diag_set(d, "", 0, key,
			 "-r (--root) %" PRId32 " is not one of the %" PRIu32 " ranks", c->root,
			 n_ranks);
		return -EINVAL;
	}
	if (count < 0 || count > NCCL_TESTS_MAX_SIZES) {
		diag_set(d, "", 0, key, "the sizes never end");
		return -EINVAL;
	}
	*rows = calloc(count ? (size_t)count : 1, sizeof(**rows));
	if (!*rows)
		return -ENOMEM;
	for (long i = 0; i < count; i++) {
		uint64_t elts = s / c->elt_size, param = elts;

		if (nt_per_rank(c->coll))
			param = (elts / n_ranks) & ~(uint64_t)(16 / c->elt_size - 1);
		(*rows)[i].count = param;
		(*rows)[i].bytes = param * c->elt_size * (nt_per_rank(c->coll) ? n_ranks : 1);
		s = c->stepfactor > 1 ? s * c->stepfactor : s + c->stepbytes;
	}
	*n = (size_t)count;
	return 0;
}

double nccl_tests_busbw_factor(enum nccl_tests_coll coll, uint32_t n_ranks)
{
	switch (coll) {
	case NCCL_TESTS_ALL_REDUCE:
		return ((double)(2 * ((int)n_ranks - 1))) / ((double)n_ranks);
	case NCCL_TESTS_ALL_GATHER:
	case NCCL_TESTS_REDUCE_SCATTER:
	case NCCL_TESTS_ALLTOALL:
		return ((double)((int)n_ranks - 1)) / ((double)n_ranks);
	default:
		return 1;
	}
}

void nccl_tests_bw(const struct nccl_tests_cmd *c, uint32_t n_ranks, const struct nccl_tests_row *r,
		   double time_us, double *algbw, double *busbw)
{
	double sec = time_us / 1.0E6;
	uint64_t bytes = r->count * c->elt_size * (nt_per_rank(c->coll) ? n_ranks : 1);

	/* GetBw of each collective: the same expression, the same rounding */
	*algbw = (double)bytes / 1.0E9 / sec;
	*busbw = *algbw * nccl_tests_busbw_factor(c->coll, n_ranks);
}

/* ---- the table --------------------------------------------------------------------- */

/* @v in @width characters as getFloatStr (src/util.cu) writes it. */
static void nt_float(double v, int width, char *str)
{
	if (snprintf(str, (size_t)width + 1, "%*.2f", width, v) <= width)
		return;
	if (snprintf(str, (size_t)width + 1, "%*.1f", width, v) <= width)
		return;
	if (snprintf(str, (size_t)width + 1, "%*.0f", width, v) <= width)
		return;
	snprintf(str, (size_t)width + 1, width >= 7 ? "%*.1e" : "%*.0e", width, v);
}

/* writeBenchmarkLineBody: one column group (time, algbw, busbw, #wrong). */
static void nt_body(FILE *f, const struct nccl_tests_cmd *c, double time_us, double algbw,
		    double busbw)
{
	char t[8], a[7], b[7];

	nt_float(time_us, 7, t);
	nt_float(algbw, 6, a);
	nt_float(busbw, 6, b);
	if (c->check)
		fprintf(f, "  %7s  %6s  %6s  %6g", t, a, b, 0.0);
	else
		fprintf(f, "  %7s  %6s  %6s    N/A", t, a, b);
}

void nccl_tests_print(FILE *f, const struct nccl_tests_cmd *c, uint32_t n_ranks,
		      const struct nccl_tests_row *rows, size_t n)
{
	int reduces = c->coll == NCCL_TESTS_ALL_REDUCE || c->coll == NCCL_TESTS_REDUCE_SCATTER ||
		      c->coll == NCCL_TESTS_REDUCE || c->coll == NCCL_TESTS_SENDRECV;
	int rooted = c->coll == NCCL_TESTS_BROADCAST || c->coll == NCCL_TESTS_REDUCE;
	double sum = 0, algbw, busbw;
	char root[16];

	fprintf(f, "#\n");
	fprintf(f,
		"# %10s  %12s  %8s  %6s  %6s           out-of-place                       "
		"in-place          \n",
		"", "", "", "", "");
	fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n",
		"size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
		"time", "algbw", "busbw", "#wrong", 0, "");
	fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n",
		"(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
		"(GB/s)", "", 0, "");
	snprintf(root, sizeof(root), "%6i", rooted ? (int)c->root : -1);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%12" PRIu64 "  %12" PRIu64 "  %8s  %6s  %6s", rows[i].bytes,
			rows[i].count, c->type, reduces ? c->op : "none", root);
		/* out of place, then in place */
		for (int k = 0; k < 2; k++) {
			double t =
			    k && rows[i].time_in_us > 0 ? rows[i].time_in_us : rows[i].time_us;

			nccl_tests_bw(c, n_ranks, &rows[i], t, &algbw, &busbw);
			nt_body(f, c, t, algbw, busbw);
			sum += busbw; /* args->bw[0], once a column group */
		}
		fprintf(f, "\n");
	}
	fprintf(f, "# %-20s : %d %s\n", "Out of bounds values", 0, "OK");
	fprintf(f, "# %-20s : %g %s\n", "Avg bus bandwidth", sum / (double)(2 * n), "");
	fprintf(f, "#\n");
	fprintf(f, "# Collective test concluded: %s\n", c->binary);
	fprintf(f, "#\n");
	fprintf(f, "\n");
}
