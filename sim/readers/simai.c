/* SimAI workload files (see simai.h). */
#include "sim/readers/simai.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/textfile.h"

#define SA_WORDS 13	     /* a layer line, with HYBRID_CUSTOMIZED's kind */
#define SA_LINE 1024	     /* the longest layer line */
#define SA_LAYERS (1u << 20) /* the most layers a file announces */

static const char *const sa_kinds[] = {
    [SIMAI_KIND_NONE] = "",
    [SIMAI_DATA] = "DATA",
    [SIMAI_HYBRID_TRANSFORMER] = "HYBRID_TRANSFORMER",
    [SIMAI_HYBRID_TRANSFORMER_FWD_IN_BCKWD] = "HYBRID_TRANSFORMER_FWD_IN_BCKWD",
    [SIMAI_HYBRID_DLRM] = "HYBRID_DLRM",
    [SIMAI_HYBRID_DLRM_ENHANCED] = "HYBRID_DLRM_ENHANCED",
    [SIMAI_MODEL] = "MODEL",
    [SIMAI_HYBRID_DATA_MODEL] = "HYBRID_DATA_MODEL",
    [SIMAI_HYBRID_MODEL_DATA] = "HYBRID_MODEL_DATA",
    [SIMAI_HYBRID_CUSTOMIZED] = "HYBRID_CUSTOMIZED",
    [SIMAI_MICRO] = "MICRO",
    [SIMAI_DISTRIBUTED_INFERENCE] = "DISTRIBUTED_INFERENCE",
};

static const char *const sa_colls[] = {
    [SIMAI_COLL_NONE] = "NONE",	     [SIMAI_ALLREDUCE] = "ALLREDUCE",
    [SIMAI_ALLGATHER] = "ALLGATHER", [SIMAI_REDUCESCATTER] = "REDUCESCATTER",
    [SIMAI_ALLTOALL] = "ALLTOALL",   [SIMAI_BROADCAST] = "BROADCAST",
};

static const char *const sa_groups[] = {
    [SIMAI_GROUP_NONE] = "NONE", [SIMAI_GROUP_TP] = "TP",	[SIMAI_GROUP_DP] = "DP",
    [SIMAI_GROUP_EP] = "EP",	 [SIMAI_GROUP_DP_EP] = "DP_EP",
};

const char *simai_kind_name(enum simai_kind k)
{
	return (unsigned)k < sizeof(sa_kinds) / sizeof(sa_kinds[0]) ? sa_kinds[k] : "?";
}

const char *simai_coll_name(enum simai_coll c)
{
	return (unsigned)c < sizeof(sa_colls) / sizeof(sa_colls[0]) ? sa_colls[c] : "?";
}

const char *simai_group_name(enum simai_group g)
{
	return (unsigned)g < sizeof(sa_groups) / sizeof(sa_groups[0]) ? sa_groups[g] : "?";
}

static enum simai_kind sa_kind(const char *s)
{
	for (size_t k = 1; k < sizeof(sa_kinds) / sizeof(sa_kinds[0]); k++)
		if (!strcmp(s, sa_kinds[k]))
			return (enum simai_kind)k;
	return SIMAI_KIND_NONE;
}

/* A decimal number of digits only into @v (at most @max); -1 if not one. */
static int sa_uint(const char *s, uint64_t max, uint64_t *v)
{
	char *e;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &e, 10);
	return *e || errno || *v > max ? -1 : 0;
}

/* Blank-separated words of @buf (modified) into @w (room for @max); how
 * many, @max + 1 for more. */
static size_t sa_words(char *buf, char **w, size_t max)
{
	char *q, *save = NULL;
	size_t n = 0;

	for (q = strtok_r(buf, " \t\r\v\f", &save); q; q = strtok_r(NULL, " \t\r\v\f", &save)) {
		if (n == max)
			return n + 1;
		w[n++] = q;
	}
	return n;
}

/* ---- the header -------------------------------------------------------------------- */

/* The header's keys: which bit, and the kinds that read them (0: all). */
enum { SA_TRANSFORMERS = 1, SA_FWD_IN_BCKWD, SA_DLRMS };

static const struct sa_key {
	const char *word;
	uint32_t bit;
	int readers;
} sa_keys[] = {
    {"model_parallel_NPU_group:", SIMAI_HAS_TP, SA_TRANSFORMERS},
    {"ep:", SIMAI_HAS_EP, SA_TRANSFORMERS},
    {"pp:", SIMAI_HAS_PP, SA_TRANSFORMERS},
    {"vpp:", SIMAI_HAS_VPP, SA_TRANSFORMERS},
    {"ga:", SIMAI_HAS_GA, SA_TRANSFORMERS},
    {"all_gpus:", SIMAI_HAS_ALL_GPUS, SA_TRANSFORMERS},
    {"checkpoints:", SIMAI_HAS_CHECKPOINTS, SA_FWD_IN_BCKWD},
    {"checkpoint_initiates:", SIMAI_HAS_CHECKPOINT_INITIATES, SA_FWD_IN_BCKWD},
    {"pp_comm:", SIMAI_HAS_PP_COMM, 0},
    {"pp_comm", SIMAI_HAS_PP_COMM, 0},
    {"DLRM_LAST_BOTTOM_LAYER:", SIMAI_HAS_DLRM_LAST_BOTTOM_LAYER, SA_DLRMS},
};

static int sa_reads(enum simai_kind k, int readers)
{
	switch (readers) {
	case SA_TRANSFORMERS:
		return k == SIMAI_HYBRID_TRANSFORMER || k == SIMAI_HYBRID_TRANSFORMER_FWD_IN_BCKWD;
	case SA_FWD_IN_BCKWD:
		return k == SIMAI_HYBRID_TRANSFORMER_FWD_IN_BCKWD;
	case SA_DLRMS:
		return k == SIMAI_HYBRID_DLRM || k == SIMAI_HYBRID_DLRM_ENHANCED;
	default:
		return 1;
	}
}

/* Add @word to @w->ignored, "..." once it is full. */
static void sa_ignore(struct simai_workload *w, const char *word)
{
	size_t have = strlen(w->ignored), room = sizeof(w->ignored) - 5;

	if (have >= 3 && !strcmp(w->ignored + have - 3, "..."))
		return;
	if (have + !!have + strlen(word) > room) {
		strcpy(w->ignored + have, have ? " ..." : "...");
		return;
	}
	sprintf(w->ignored + have, "%s%s", have ? " " : "", word);
}

/* pp_comm as AICB writes it: a whole number, perhaps with a ".0" Python
 * puts on a float; -1 if not one. */
static int sa_bytes_value(const char *s, uint64_t *v)
{
	char t[32];
	const char *dot = strchr(s, '.');
	size_t n = dot ? (size_t)(dot - s) : strlen(s);

	if (n == 0 || n >= sizeof(t))
		return -1;
	if (dot)
		for (const char *q = dot + 1; *q; q++)
			if (*q != '0')
				return -1;
	memcpy(t, s, n);
	t[n] = '\0';
	return sa_uint(t, UINT64_MAX, v);
}

/* "checkpoints: N l1 .. lN" from @tok[@i] on: the list into @list/@n;
 * the words used, or -1 with @d set. */
static int sa_list(const char *path, const char *key, char **tok, size_t n_tok, size_t i,
		   uint32_t **list, uint32_t *n, struct diag *d)
{
	uint64_t count, v;

	if (sa_uint(tok[i + 1], SA_LAYERS, &count)) {
		diag_set(d, path, 1, key, "%s \"%s\" is not a count of layers", tok[i], tok[i + 1]);
		return -1;
	}
	if (i + 2 + count > n_tok) {
		diag_set(d, path, 1, key, "%s %" PRIu64 " is followed by %zu layer indices", tok[i],
			 count, n_tok - i - 2);
		return -1;
	}
	*list = calloc(count ? count : 1, sizeof(**list));
	if (!*list)
		return -2;
	for (uint64_t k = 0; k < count; k++) {
		if (sa_uint(tok[i + 2 + k], UINT32_MAX, &v)) {
			diag_set(d, path, 1, key, "%s \"%s\" is not a layer index", tok[i],
				 tok[i + 2 + k]);
			return -1;
		}
		(*list)[k] = (uint32_t)v;
	}
	*n = (uint32_t)count;
	return (int)count + 2;
}

/* The value of key @k at @tok[@i + 1] into @w; -1 with @d set. */
static int sa_value(const char *path, const char *key, const struct sa_key *k, char **tok, size_t i,
		    struct simai_workload *w, struct diag *d)
{
	uint32_t *dst[] = {&w->tp, &w->ep, &w->pp, &w->vpp, &w->ga, &w->all_gpus};
	uint64_t v;

	if (k->bit == SIMAI_HAS_PP_COMM) {
		if (sa_bytes_value(tok[i + 1], &v)) {
			diag_set(d, path, 1, key, "pp_comm \"%s\" is not a size in bytes",
				 tok[i + 1]);
			return -1;
		}
		w->pp_comm = v;
		return 0;
	}
	if (sa_uint(tok[i + 1], INT32_MAX, &v) ||
	    (v == 0 && k->bit != SIMAI_HAS_DLRM_LAST_BOTTOM_LAYER)) {
		diag_set(d, path, 1, key, "%s \"%s\" is not a whole number above 0", tok[i],
			 tok[i + 1]);
		return -1;
	}
	if (k->bit == SIMAI_HAS_DLRM_LAST_BOTTOM_LAYER)
		w->dlrm_last_bottom_layer = (uint32_t)v;
	for (size_t b = 0; b < sizeof(dst) / sizeof(dst[0]); b++)
		if (k->bit == 1u << b)
			*dst[b] = (uint32_t)v;
	return 0;
}

/* The group sizes agree, and pp_comm with pp (simai.h). */
static int sa_check_sizes(const char *path, const char *key, const struct simai_workload *w,
			  struct diag *d)
{
	uint32_t dp;

	if ((w->given & SIMAI_HAS_PP) && w->pp > 1 && !w->pp_comm) {
		diag_set(d, path, 1, key,
			 "pp: %" PRIu32 " without pp_comm (the bytes between stages)", w->pp);
		return -1;
	}
	if ((w->given & SIMAI_HAS_PP) && w->pp == 1 && w->pp_comm) {
		diag_set(d, path, 1, key, "pp_comm %" PRIu64 " with a single pipeline stage",
			 w->pp_comm);
		return -1;
	}
	if (!(w->given & SIMAI_HAS_ALL_GPUS) || !(w->given & SIMAI_HAS_TP))
		return 0;
	if ((uint64_t)w->tp * w->pp > w->all_gpus || w->all_gpus % (w->tp * w->pp)) {
		diag_set(d, path, 1, key,
			 "model_parallel_NPU_group %" PRIu32 " times pp %" PRIu32
			 " does not divide all_gpus %" PRIu32,
			 w->tp, w->pp, w->all_gpus);
		return -1;
	}
	dp = w->all_gpus / (w->tp * w->pp);
	if (dp % w->ep) {
		diag_set(d, path, 1, key,
			 "ep %" PRIu32 " does not divide the data-parallel size %" PRIu32
			 " (all_gpus / (model_parallel_NPU_group * pp))",
			 w->ep, dp);
		return -1;
	}
	return 0;
}

/* The header line @line (modified) into @w; -EINVAL with @d set, -ENOMEM. */
static int sa_header(const char *path, const char *key, char *line, struct simai_workload *w,
		     struct diag *d)
{
	size_t n_tok = 0, cap = 1;
	char **tok;
	int err = -EINVAL;

	for (const char *q = line; *q; q++)
		cap += strchr(" \t\r\v\f", *q) != NULL;
	tok = malloc(cap * sizeof(*tok));
	if (!tok)
		return -ENOMEM;
	n_tok = sa_words(line, tok, cap);
	if (!n_tok) {
		diag_set(d, path, 1, key,
			 "expected the parallelism kind on the first line (e.g. "
			 "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ...)");
		goto out;
	}
	w->kind = sa_kind(tok[0]);
	if (w->kind == SIMAI_KIND_NONE) {
		diag_set(
		    d, path, 1, key,
		    "\"%s\" is not a parallelism kind of SimAI (DATA, HYBRID_TRANSFORMER, "
		    "HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_DLRM, HYBRID_DLRM_ENHANCED, MODEL, "
		    "HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, HYBRID_CUSTOMIZED, MICRO, "
		    "DISTRIBUTED_INFERENCE)",
		    tok[0]);
		goto out;
	}
	for (size_t i = 1; i < n_tok; i++) {
		const struct sa_key *k = NULL;
		int used = 0;

		for (size_t j = 0; j < sizeof(sa_keys) / sizeof(sa_keys[0]); j++)
			if (!strcmp(tok[i], sa_keys[j].word))
				k = &sa_keys[j];
		if (!k) {
			sa_ignore(w, tok[i]);
			continue;
		}
		if (!sa_reads(w->kind, k->readers)) {
			/* SimAI does not read it for this kind: neither does this */
			sa_ignore(w, tok[i]);
			continue;
		}
		if (i + 1 == n_tok) {
			diag_set(d, path, 1, key, "%s without its value", tok[i]);
			goto out;
		}
		if (w->given & k->bit) {
			diag_set(d, path, 1, key, "%s given twice", tok[i]);
			goto out;
		}
		w->given |= k->bit;
		if (k->bit == SIMAI_HAS_CHECKPOINTS)
			used = sa_list(path, key, tok, n_tok, i, &w->checkpoints, &w->n_checkpoints,
				       d);
		else if (k->bit == SIMAI_HAS_CHECKPOINT_INITIATES)
			used = sa_list(path, key, tok, n_tok, i, &w->checkpoint_initiates,
				       &w->n_checkpoint_initiates, d);
		else
			used = sa_value(path, key, k, tok, i, w, d) ? -1 : 2;
		if (used < 0) {
			err = used == -2 ? -ENOMEM : -EINVAL;
			goto out;
		}
		i += (size_t)used - 1;
	}
	err = sa_check_sizes(path, key, w, d) ? -EINVAL : 0;
out:
	free(tok);
	return err;
}

/* ---- the layers -------------------------------------------------------------------- */

/* Collective word @s of phase @ph (0 fwd, 1 ig, 2 wg) into @p; -1 if not one. */
static int sa_coll(const char *s, int ph, struct simai_phase *p)
{
	static const char *const suffix[] = {"", "_EP", "_DP_EP"};
	const enum simai_group groups[] = {ph == 2 ? SIMAI_GROUP_DP : SIMAI_GROUP_TP,
					   SIMAI_GROUP_EP, SIMAI_GROUP_DP_EP};

	p->group = SIMAI_GROUP_NONE;
	if (!strcmp(s, "NONE") || !strcmp(s, "BROADCAST")) {
		p->coll = *s == 'N' ? SIMAI_COLL_NONE : SIMAI_BROADCAST;
		return 0;
	}
	for (int c = SIMAI_ALLREDUCE; c <= SIMAI_ALLTOALL; c++) {
		size_t n = strlen(sa_colls[c]);

		if (strncmp(s, sa_colls[c], n))
			continue;
		for (size_t g = 0; g < 3; g++)
			if (!strcmp(s + n, suffix[g])) {
				p->coll = (enum simai_coll)c;
				p->group = groups[g];
				return 0;
			}
	}
	return -1;
}

static const char *const sa_fields[] = {
    "name",	"reserved",   "fwd_compute", "fwd_coll", "fwd_bytes", "ig_compute", "ig_coll",
    "ig_bytes", "wg_compute", "wg_coll",     "wg_bytes", "update",    "kind",
};

/* A layer line @w (@n words) into @l; -EINVAL with @d set. */
static int sa_layer(const char *path, int line, const char *key, enum simai_kind kind, char **w,
		    size_t n, struct simai_layer *l, struct diag *d)
{
	size_t want = kind == SIMAI_HYBRID_CUSTOMIZED ? 13 : 12;
	struct simai_phase *ph[] = {&l->fwd, &l->ig, &l->wg};
	char *e;
	long r;

	if (n != want) {
		diag_set(d, path, line, key,
			 "%s words: expected %zu, \"name reserved fwd_compute fwd_coll fwd_bytes "
			 "ig_compute ig_coll ig_bytes wg_compute wg_coll wg_bytes update%s\"",
			 n < want ? "missing" : "too many", want, want == 13 ? " kind" : "");
		return -EINVAL;
	}
	if (strlen(w[0]) >= sizeof(l->name)) {
		diag_set(d, path, line, key, "layer name longer than %zu characters",
			 sizeof(l->name) - 1);
		return -EINVAL;
	}
	strcpy(l->name, w[0]);
	errno = 0;
	r = strtol(w[1], &e, 10);
	if (e == w[1] || *e || errno || r < INT32_MIN || r > INT32_MAX) {
		diag_set(d, path, line, key,
			 "reserved \"%s\" is not a whole number (AICB writes -1)", w[1]);
		return -EINVAL;
	}
	l->reserved = (int32_t)r;
	for (int p = 0; p < 3; p++) {
		char **f = w + 2 + 3 * p;

		if (sa_uint(f[0], UINT64_MAX / SIMTIME_NS, &ph[p]->compute)) {
			diag_set(d, path, line, key, "%s \"%s\" is not a time in ns (0 or more)",
				 sa_fields[2 + 3 * p], f[0]);
			return -EINVAL;
		}
		if (sa_coll(f[1], p, ph[p])) {
			diag_set(d, path, line, key,
				 "%s \"%s\" is not a collective of SimAI (NONE, ALLREDUCE, "
				 "ALLGATHER, REDUCESCATTER, ALLTOALL, bare or with _EP or _DP_EP)",
				 sa_fields[3 + 3 * p], f[1]);
			return -EINVAL;
		}
		if (sa_uint(f[2], UINT64_MAX, &ph[p]->bytes)) {
			diag_set(d, path, line, key, "%s \"%s\" is not a size in bytes (0 or more)",
				 sa_fields[4 + 3 * p], f[2]);
			return -EINVAL;
		}
	}
	if (sa_uint(w[11], UINT64_MAX / SIMTIME_NS, &l->update)) {
		diag_set(d, path, line, key, "update \"%s\" is not a time in ns (0 or more)",
			 w[11]);
		return -EINVAL;
	}
	l->custom = SIMAI_KIND_NONE;
	if (want == 13) {
		l->custom = sa_kind(w[12]);
		if (l->custom == SIMAI_KIND_NONE) {
			diag_set(d, path, line, key,
				 "kind \"%s\" is not a parallelism kind of SimAI", w[12]);
			return -EINVAL;
		}
	}
	l->line = line;
	return 0;
}

void simai_free(struct simai_workload *w)
{
	free(w->layers);
	free(w->checkpoints);
	free(w->checkpoint_initiates);
	memset(w, 0, sizeof(*w));
}

/* The checkpoint indices name layers of the file. */
static int sa_check_indices(const char *path, const char *key, const struct simai_workload *w,
			    struct diag *d)
{
	for (int k = 0; k < 2; k++) {
		const uint32_t *list = k ? w->checkpoint_initiates : w->checkpoints;
		uint32_t n = k ? w->n_checkpoint_initiates : w->n_checkpoints;

		for (uint32_t i = 0; i < n; i++)
			if (list[i] >= w->n_layers) {
				diag_set(d, path, 1, key,
					 "%s: layer %" PRIu32 " past the %" PRIu32
					 " layers (indices from 0)",
					 k ? "checkpoint_initiates" : "checkpoints", list[i],
					 w->n_layers);
				return -1;
			}
	}
	return 0;
}

/* The line at *@p (before @stop) into a new string *@out; its length. */
static int sa_line(const char **p, const char *stop, char **out)
{
	size_t l = 0;

	while (*p + l < stop && (*p)[l] != '\n' && (*p)[l] != '\0')
		l++;
	*out = malloc(l + 1);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, *p, l);
	(*out)[l] = '\0';
	*p += l + (*p + l < stop);
	return 0;
}

/* Line 2, the layer count, into @count; -EINVAL with @d set. */
static int sa_count(const char *path, const char *key, char *buf, uint64_t *count, struct diag *d)
{
	char *w[2];

	if (sa_words(buf, w, 1) != 1 || sa_uint(w[0], SA_LAYERS, count) || !*count) {
		diag_set(d, path, 2, key,
			 "expected the number of layer lines on the second line (1 to %u)",
			 SA_LAYERS);
		return -EINVAL;
	}
	return 0;
}

int simai_parse(const char *path, const char *text, size_t len, const char *key,
		struct simai_workload *w, struct diag *d)
{
	const char *p = text, *stop = text + len;
	uint64_t count = 0, room = 1;
	char buf[SA_LINE + 1], *line = NULL, *words[SA_WORDS];
	int n_line = 2, err;
	size_t n;

	memset(w, 0, sizeof(*w));
	w->ep = w->pp = w->vpp = w->ga = 1;
	if (sa_line(&p, stop, &line))
		return -ENOMEM;
	err = sa_header(path, key, line, w, d);
	free(line);
	if (err)
		goto fail;
	if (p >= stop) {
		diag_set(d, path, 2, key, "expected the number of layer lines on the second line");
		err = -EINVAL;
		goto fail;
	}
	if ((err = sa_line(&p, stop, &line)))
		goto fail;
	err = sa_count(path, key, line, &count, d);
	free(line);
	if (err)
		goto fail;
	/* a layer a line: a count above the lines left is refused below,
	 * without an array of its size first */
	for (const char *q = p; q < stop && room < count; q++)
		room += *q == '\n' || *q == '\0';
	w->layers = calloc(room < count ? room : count, sizeof(*w->layers));
	if (!w->layers) {
		err = -ENOMEM;
		goto fail;
	}
	err = -EINVAL;
	while (p < stop) {
		size_t l = 0;

		while (p + l < stop && p[l] != '\n' && p[l] != '\0')
			l++;
		n_line++;
		if (l > SA_LINE) {
			diag_set(d, path, n_line, key, "line too long (more than %d characters)",
				 SA_LINE);
			goto fail;
		}
		memcpy(buf, p, l);
		buf[l] = '\0';
		p += l + (p + l < stop);
		n = sa_words(buf, words, SA_WORDS);
		if (!n)
			continue;
		if (w->n_layers == count) {
			diag_set(d, path, n_line, key,
				 "a layer line past the %" PRIu64 " the second line announces",
				 count);
			goto fail;
		}
		if (sa_layer(path, n_line, key, w->kind, words, n, &w->layers[w->n_layers], d))
			goto fail;
		w->n_layers++;
	}
	if (w->n_layers < count) {
		diag_set(d, path, n_line, key,
			 "the second line announces %" PRIu64 " layers, the file has %" PRIu32,
			 count, w->n_layers);
		goto fail;
	}
	if (sa_check_indices(path, key, w, d))
		goto fail;
	return 0;
fail:
	simai_free(w);
	return err;
}

int simai_read(const char *path, const char *key, struct simai_workload *w, struct diag *d)
{
	char *text;
	size_t len;
	int err;

	memset(w, 0, sizeof(*w));
	err = textfile_load(path, 0, &text, &len, d);
	if (err)
		return err == -ENOMEM ? err : -EINVAL;
	err = simai_parse(path, text, len, key, w, d);
	free(text);
	return err;
}
