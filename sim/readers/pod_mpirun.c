/*
 * NCCL_* variables a container passes on mpirun's command line, as
 * nccl-tests jobs do (the MPI operator's examples/v2beta1/nccl-tests: the
 * Launcher runs `mpirun ... -x NCCL_DEBUG ...` under /bin/bash -c). Open
 * MPI's mpirun(1): `-x NAME=VALUE` sets NAME for every rank it starts,
 * `-x NAME` exports the value NAME has where mpirun runs.
 *
 * A container's command and args are one argv (Kubernetes' "Define a
 * Command and Arguments for a Container"): read as they are, or, when
 * argv[0] is a shell given -c (sh, bash, ... -c or -lc), its script split
 * as the shell splits words (blanks, newlines and ; & | ( ) between them,
 * '...' and "..." quoting, backslash escapes and line continuations,
 * # comments). `export NAME=VALUE` and `NAME=VALUE` before a command set
 * what a later `-x NAME` exports; otherwise it takes the container's own
 * env. A value with $ or ` expansion is known only at run time. What mpirun
 * exports reaches every rank and wins over the containers' env
 * (POD_SRC_MPIRUN, pod_get).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/pod_impl.h"

struct pod_tok {
	char *s;
	int sep;     /* a command separator: newline ; & | ( ) */
	int expands; /* holds a $ or ` expansion outside single quotes */
	int line;    /* the line of the argv item it comes from */
};

struct pod_toks {
	struct pod_tok *v;
	size_t n, cap;
};

struct pod_var {
	const char *name, *value; /* borrowed from the tokens */
	int expands, line;
};

static int pod_tok_push(struct pod_toks *t, const char *s, size_t len, int sep, int expands,
			int line)
{
	struct pod_tok *v;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 32;

		if (!(v = realloc(t->v, cap * sizeof(*v))))
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	v = &t->v[t->n];
	if (!(v->s = malloc(len + 1)))
		return -ENOMEM;
	memcpy(v->s, s, len);
	v->s[len] = '\0';
	v->sep = sep;
	v->expands = expands;
	v->line = line;
	t->n++;
	return 0;
}

static void pod_toks_free(struct pod_toks *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].s);
	free(t->v);
}

static int pod_sh_op(char ch)
{
	return ch == '\n' || ch == ';' || ch == '&' || ch == '|' || ch == '(' || ch == ')';
}

/* Split shell script @s into words and separators, each of line @line. */
static int pod_sh_split(const char *s, int line, struct pod_toks *t)
{
	size_t len = strlen(s), n = 0;
	char *w = malloc(len + 1);
	int err = 0;

	if (!w)
		return -ENOMEM;
	for (size_t i = 0; !err && i < len;) {
		int expands = 0, word = 0;

		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
			i++;
			continue;
		}
		if (s[i] == '\\' && s[i + 1] == '\n') {
			i += 2;
			continue;
		}
		if (pod_sh_op(s[i])) {
			if (!t->n || !t->v[t->n - 1].sep)
				err = pod_tok_push(t, s + i, 1, 1, 0, line);
			i++;
			continue;
		}
		if (s[i] == '#') {
			while (i < len && s[i] != '\n')
				i++;
			continue;
		}
		for (n = 0; i < len &&
			    !(s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || pod_sh_op(s[i]));) {
			word = 1;
			if (s[i] == '\\') {
				if (s[i + 1] != '\n' && i + 1 < len)
					w[n++] = s[i + 1];
				i += 2;
			} else if (s[i] == '\'') {
				for (i++; i < len && s[i] != '\''; i++)
					w[n++] = s[i];
				i++;
			} else if (s[i] == '"') {
				for (i++; i < len && s[i] != '"'; i++) {
					if (s[i] == '\\' && i + 1 < len &&
					    strchr("$`\"\\\n", s[i + 1])) {
						if (s[++i] != '\n')
							w[n++] = s[i];
						continue;
					}
					expands |= s[i] == '$' || s[i] == '`';
					w[n++] = s[i];
				}
				i++;
			} else {
				expands |= s[i] == '$' || s[i] == '`';
				w[n++] = s[i++];
			}
		}
		if (word)
			err = pod_tok_push(t, w, n, 0, expands, line);
	}
	free(w);
	return err;
}

/* "/usr/bin/bash" -> "bash" */
static const char *pod_base(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

static int pod_is_shell(const char *s)
{
	static const char *const shells[] = {"sh", "bash", "dash", "ash", "ksh", "zsh"};

	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (!strcmp(pod_base(s), shells[i]))
			return 1;
	return 0;
}

static int pod_is_mpirun(const char *s)
{
	static const char *const runs[] = {"mpirun", "mpiexec", "orterun", "prterun"};

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		if (!strcmp(pod_base(s), runs[i]))
			return 1;
	return 0;
}

/* NAME=... with NAME a shell variable name: the length of NAME, else 0. */
static size_t pod_assign(const char *s)
{
	size_t k = 0;

	if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return 0;
	while ((s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= 'a' && s[k] <= 'z') ||
	       (s[k] >= '0' && s[k] <= '9') || s[k] == '_')
		k++;
	return s[k] == '=' ? k : 0;
}

/*
 * The line of the first @needle of the file from line @from on, and from
 * byte *@cursor on; @from when there is none. The cursor moves past it, so
 * that words read in order find their places in order, several on a line.
 */
static int pod_line_of(const struct pod_ctx *c, int from, const char *needle, size_t *cursor)
{
	size_t at = 0, nlen = strlen(needle);
	int line = 1;

	for (; at < c->len && line < from; at++)
		line += c->text[at] == '\n';
	if (*cursor > at)
		at = *cursor;
	for (; at + nlen <= c->len; at++)
		if (!memcmp(c->text + at, needle, nlen)) {
			*cursor = at + nlen;
			for (line = 1; at-- > 0;)
				line += c->text[at] == '\n';
			return line;
		}
	return from;
}

/* argv of container @i (its command, then its args), each item at its line. */
static int pod_argv(const struct pod_ctx *c, const char *base, unsigned i,
		    const struct pod_y_ctr *ctr, struct pod_toks *t)
{
	char path[256];
	int err = 0;

	for (int k = 0; k < 2 && !err; k++) {
		char **items = k ? ctr->args : ctr->command;
		unsigned count = k ? ctr->args_count : ctr->command_count;

		for (unsigned j = 0; j < count && !err; j++) {
			snprintf(path, sizeof(path), "%s[%u].%s[%u]", base, i,
				 k ? "args" : "command", j);
			err = pod_tok_push(t, items[j], strlen(items[j]), 0, 0,
					   ydoc_line_near(c->y, path));
		}
	}
	return err;
}

/* The words of @argv as the container runs them: a shell's -c script split. */
static int pod_words(const struct pod_toks *argv, struct pod_toks *t)
{
	size_t script = 0;
	int err = 0;

	if (argv->n && pod_is_shell(argv->v[0].s)) {
		for (size_t k = 1; k < argv->n && !script; k++) {
			const char *o = argv->v[k].s;

			if (o[0] != '-')
				break;
			if (o[1] != '-' && strchr(o, 'c'))
				script = k + 1;
		}
	}
	if (script && script < argv->n)
		return pod_sh_split(argv->v[script].s, argv->v[script].line, t);
	for (size_t k = 0; k < argv->n && !err; k++)
		err = pod_tok_push(t, argv->v[k].s, strlen(argv->v[k].s), 0, 0, argv->v[k].line);
	return err;
}

/* The value the container gives @name (the last of its collected entries), or NULL. */
static const struct pod_env *pod_ctr_value(const struct pod_ctx *c, unsigned id, const char *name)
{
	for (size_t k = c->n; k-- > 0;)
		if (c->v[k].env.ctr == id && c->v[k].env.src != POD_SRC_MPIRUN &&
		    !strcmp(c->v[k].env.name, name))
			return &c->v[k].env;
	return NULL;
}

/* One `-x ARG` of a mpirun at token @x (its line by the cursor). */
static int pod_export(struct pod_ctx *c, const struct pod_tok *x, const struct pod_var *vars,
		      size_t n_vars, struct pod_env *e, size_t *cursor, struct diag *d)
{
	size_t k = pod_assign(x->s);
	const struct pod_env *from;
	char needle[80];

	if (!k) { /* -x NAME: the value where mpirun runs */
		if (strncmp(x->s, "NCCL_", 5) || strlen(x->s) >= sizeof(e->name))
			return 1;
		snprintf(e->name, sizeof(e->name), "%s", x->s);
		e->line = pod_line_of(c, x->line, x->s, cursor);
		for (size_t v = n_vars; v-- > 0;)
			if (!strcmp(vars[v].name, x->s)) {
				snprintf(e->value, sizeof(e->value), "%.*s",
					 (int)(sizeof(e->value) - 1), vars[v].value);
				e->value_from = vars[v].expands;
				e->src_line = vars[v].line;
				snprintf(e->from, sizeof(e->from), "mpirun -x, set by the script");
				return 0;
			}
		if (!(from = pod_ctr_value(c, e->ctr, x->s)))
			return 1; /* unset where mpirun runs: nothing exported */
		snprintf(e->value, sizeof(e->value), "%s", from->value);
		e->value_from = from->value_from;
		e->src_line = from->src_line;
		snprintf(e->from, sizeof(e->from), "mpirun -x, the container's env");
		return 0;
	}
	if (strncmp(x->s, "NCCL_", 5))
		return 1;
	snprintf(needle, sizeof(needle), "%.*s=", (int)(k < 70 ? k : 70), x->s);
	e->line = e->src_line = pod_line_of(c, x->line, needle, cursor);
	if (k >= sizeof(e->name)) {
		diag_set(d, c->file, e->line, "",
			 "mpirun -x %.*s: variable name longer than %zu characters", (int)k, x->s,
			 sizeof(e->name) - 1);
		return -EINVAL;
	}
	if (strlen(x->s + k + 1) >= sizeof(e->value)) {
		diag_set(d, c->file, e->line, "",
			 "mpirun -x %.*s: value longer than %zu characters", (int)k, x->s,
			 sizeof(e->value) - 1);
		return -EINVAL;
	}
	snprintf(e->name, sizeof(e->name), "%.*s", (int)k, x->s);
	snprintf(e->value, sizeof(e->value), "%s", x->s + k + 1);
	e->value_from = x->expands;
	snprintf(e->from, sizeof(e->from), "mpirun -x");
	return 0;
}

int pod_mpirun(struct pod_ctx *c, const char *base, unsigned i, const char *replica,
	       const struct pod_y_ctr *ctr, unsigned id, struct diag *d)
{
	struct pod_toks argv = {0}, t = {0};
	struct pod_var *vars = NULL;
	size_t n_vars = 0;
	size_t cursor = 0;
	int err, start = 1;

	if (!ctr->command_count && !ctr->args_count)
		return 0;
	if ((err = pod_argv(c, base, i, ctr, &argv)) || (err = pod_words(&argv, &t)))
		goto out;
	if (t.n && !(vars = calloc(t.n, sizeof(*vars)))) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; !err && k < t.n; k++) {
		const struct pod_tok *w = &t.v[k];
		size_t a;

		if (w->sep) {
			start = 1;
			continue;
		}
		/* NAME=VALUE before a command, or after export */
		if ((start || (k && !strcmp(t.v[k - 1].s, "export"))) && (a = pod_assign(w->s))) {
			char needle[80];

			snprintf(needle, sizeof(needle), "%.*s=", (int)(a < 70 ? a : 70), w->s);
			w->s[a] = '\0';
			vars[n_vars++] = (struct pod_var){w->s, w->s + a + 1, w->expands,
							  pod_line_of(c, w->line, needle, &cursor)};
			continue;
		}
		if (!strcmp(w->s, "export"))
			continue;
		start = 0;
		if (!pod_is_mpirun(w->s))
			continue;
		for (k++; !err && k + 1 < t.n && !t.v[k].sep; k++) {
			struct pod_env e = {0};

			if (strcmp(t.v[k].s, "-x") && strcmp(t.v[k].s, "--x"))
				continue;
			k++;
			snprintf(e.container, sizeof(e.container), "%.63s", ctr->name);
			snprintf(e.replica, sizeof(e.replica), "%s", replica);
			e.ctr = id;
			e.src = POD_SRC_MPIRUN;
			err = pod_export(c, &t.v[k], vars, n_vars, &e, &cursor, d);
			if (err == 1) {
				err = 0;
				continue;
			}
			if (!err)
				err = pod_push(c, &e);
		}
		k--;
	}
out:
	free(vars);
	pod_toks_free(&argv);
	pod_toks_free(&t);
	return err;
}
