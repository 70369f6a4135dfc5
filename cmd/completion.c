// SPDX-License-Identifier: GPL-2.0
/*
 * Shell completion scripts, generated from the registry and each command's argp table, so a
 * new command or option is completed without anyone editing a script.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bt_argp.h"
#include "bt_cmd.h"
#include "bt_complete.h"
#include "bt_err.h"
#include "completion.h"

static const char *const top_words = "--list --version --help --install completion flamegraph";

static bool option_end(const struct argp_option *o)
{
	return !o->name && !o->key && !o->doc && !o->group;
}

/* Whether key is a short option letter; keys past 0x100 are long-only (isalnum() of such a
 * value is undefined). */
static bool short_key(int key)
{
	return key > 0 && key < 0x80 && isalnum(key);
}

static bool shown(const struct argp_option *o)
{
	return !(o->flags & OPTION_HIDDEN) && !(o->flags & OPTION_DOC) &&
	       (o->name || short_key(o->key));
}

static bool takes_arg(const struct argp_option *o)
{
	return o && o->arg && !(o->flags & OPTION_ARG_OPTIONAL);
}

/* -p PID, -p PIDS (comma-separated): completed with the running processes */
static bool is_pid_option(const struct argp_option *o)
{
	return takes_arg(o) && (!strcmp(o->arg, "PID") || !strcmp(o->arg, "PIDS"));
}

#define MAX_OPTIONS 256

/* Every option of a command: its own table, then its argp children's (lib/cli/bt_args.h blocks). */
static size_t all_options(const struct argp *a, const struct argp_option **v, size_t n)
{
	const struct argp_option *o;
	const struct argp_child *ch;

	for (o = a->options; o && !option_end(o); o++)
		if (n < MAX_OPTIONS)
			v[n++] = o;
	for (ch = a->children; ch && ch->argp; ch++)
		n = all_options(ch->argp, v, n);
	return n;
}

/* A command's options as main() parses them: its own, and --btf where it loads BPF. */
static size_t cmd_options(const struct bt_cmd *c, const struct argp_option **v)
{
	size_t n = all_options(c->argp, v, 0);

	return c->flags & BT_NEED_PRIV ? all_options(&bt_argp_btf, v, n) : n;
}

/* Quote for a single-quoted shell string. */
static void put_quoted(FILE *out, const char *s)
{
	fputc('\'', out);
	for (; s && *s; s++) {
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	}
	fputc('\'', out);
}

/* What all three scripts say of where their words come from, but for its last character. */
#define ARGS_FROM_BINARY                                                                         \
	"# Probe specs, PIDs and option values from the binary itself (bpftools __complete),\n"  \
	"# which reads kernel functions, tracepoints, ELF symbols and /proc at each TAB. Only\n" \
	"# a binary named bpftools is run: a tool's name on PATH may be another program's"

/* Every command's name, each after a space: a word list's or a compdef's tail. */
static void put_names(FILE *out)
{
	const struct bt_cmd *c;
	int i;

	bt_for_each_cmd(c, i)
		fprintf(out, " %s", c->name);
}

static const char bash_args[] =
	"# The words up to the cursor as typed: readline also splits words at ':' and '='\n"
	"# (COMP_WORDBREAKS), and probe specs have both.\n"
	"_bpftools_words() {\n"
	"\tif [ -n \"${COMP_LINE-}\" ]; then\n"
	"\t\tread -ra _bt_words <<<\"${COMP_LINE:0:COMP_POINT}\"\n"
	"\t\tcase \"${COMP_LINE:0:COMP_POINT}\" in *[[:space:]]) _bt_words+=(\"\") ;; esac\n"
	"\telse\n"
	"\t\t_bt_words=(\"${COMP_WORDS[@]:0:COMP_CWORD+1}\")\n"
	"\tfi\n"
	"}\n" ARGS_FROM_BINARY "\n"
	"# (libbpf-tools' biolatency), which must not start tracing at a TAB.\n"
	"_bpftools_args() {\n"
	"\tlocal word w pre= bin\n"
	"\tlocal -a _bt_words\n"
	"\t_bpftools_words\n"
	"\tbin=${_bt_words[0]}\n"
	"\tcase ${bin##*/} in bpftools*) ;; *) bin=bpftools ;; esac\n"
	"\tcommand -v \"$bin\" >/dev/null || bin=bpftools\n"
	"\tword=${_bt_words[${#_bt_words[@]}-1]}\n"
	"\tCOMPREPLY=()\n"
	"\twhile IFS= read -r w; do\n"
	"\t\tCOMPREPLY+=(\"${w%%$'\\t'*}\")\n"
	"\tdone < <(\"$bin\" __complete \"${_bt_words[@]}\" 2>/dev/null)\n"
	"\tif [ ${#COMPREPLY[@]} -eq 0 ]; then\n"
	"\t\tCOMPREPLY=($(compgen -f -- \"$word\"))\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\telif [ ${#COMPREPLY[@]} -eq 1 ]; then\n"
	"\t\tcase \"${COMPREPLY[0]}\" in *[:,=]) compopt -o nospace 2>/dev/null ;; esac\n"
	"\tfi\n"
	"\t# readline replaces only what follows the last word break in the word\n"
	"\t[ -n \"${COMP_LINE-}\" ] && pre=${word%\"${word##*[\"$COMP_WORDBREAKS\"]}\"}\n"
	"\t[ -n \"$pre\" ] && COMPREPLY=(\"${COMPREPLY[@]#\"$pre\"}\")\n"
	"\treturn 0\n"
	"}\n";

static void bash_words(FILE *out, const struct bt_cmd *c)
{
	const struct argp_option *o, *v[MAX_OPTIONS];
	size_t k, nv;

	fputs("-h --help --usage", out);
	for (k = 0, nv = cmd_options(c, v); k < nv; k++) {
		o = v[k];
		if (!shown(o))
			continue;
		if (short_key(o->key) && !(o->flags & OPTION_ALIAS))
			fprintf(out, " -%c", o->key);
		if (o->name)
			fprintf(out, " --%s", o->name);
	}
}

static void print_bash(FILE *out)
{
	const struct bt_cmd *c;
	int i;

	fprintf(out, "# bash completion for bpftools; generated by 'bpftools completion bash'\n"
		     "_bpftools_options() {\n\tcase \"$1\" in\n");
	bt_for_each_cmd(c, i) {
		fprintf(out, "\t%s) echo ", c->name);
		fputc('"', out);
		bash_words(out, c);
		fputs("\" ;;\n", out);
	}
	fprintf(out,
		"\tesac\n}\n"
		"%s"
		"# Whether the command typed runs bpftools: a tool's name may be another "
		"program's\n"
		"# (libbpf-tools' /usr/sbin/biolatency), whose options these are not.\n"
		"_bpftools_ours() {\n"
		"\tlocal p\n"
		"\tp=$(type -P -- \"$1\") || return 0\n"
		"\tp=$(readlink -f -- \"$p\")\n"
		"\tcase ${p##*/} in bpftools*) return 0 ;; esac\n"
		"\treturn 1\n"
		"}\n"
		"_bpftools() {\n"
		"\tlocal cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[0]##*/}\n"
		"\tif [ \"$cmd\" != bpftools ] && ! _bpftools_ours \"${COMP_WORDS[0]}\"; then\n"
		"\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
		"\t\treturn\n"
		"\tfi\n"
		"\tif [ \"$cmd\" = bpftools ]; then\n"
		"\t\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
		"\t\t\tCOMPREPLY=($(compgen -W \"%s",
		bash_args, top_words);
	put_names(out);
	fprintf(out,
		"\" -- \"$cur\"))\n"
		"\t\t\treturn\n"
		"\t\tfi\n"
		"\t\tcmd=${COMP_WORDS[1]}\n"
		"\t\tcase \"$cmd\" in\n"
		"\t\tcompletion) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")); return "
		";;\n"
		"\t\t--install) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
		"\t\tesac\n"
		"\tfi\n"
		"\tcase \"$cur\" in\n"
		"\t--*=*) _bpftools_args ;;\n"
		"\t-*) COMPREPLY=($(compgen -W \"$(_bpftools_options \"$cmd\")\" -- \"$cur\")) ;;\n"
		"\t*) _bpftools_args ;;\n"
		"\tesac\n"
		"}\n"
		"complete -F _bpftools bpftools");
	put_names(out);
	fputc('\n', out);
}

static const char zsh_args[] = ARGS_FROM_BINARY
	".\n"
	"_bpftools_args() {\n"
	"\tlocal -a lines items open\n"
	"\tlocal l w bin=${words[1]}\n"
	"\t[[ ${bin:t} == bpftools* ]] || bin=bpftools\n"
	"\t(( $+commands[$bin] )) || [[ -x $bin ]] || bin=bpftools\n"
	"\tlines=(\"${(@f)$(\"$bin\" __complete \"${(@Q)words[1,CURRENT-1]}\" \"${(Q)PREFIX}\" \\\n"
	"\t\t2>/dev/null)}\")\n"
	"\tfor l in \"${lines[@]}\"; do\n"
	"\t\t[[ -n $l ]] || continue\n"
	"\t\tw=${${l%%$'\\t'*}//:/\\\\:}\n"
	"\t\t[[ $l == *$'\\t'* ]] && w+=\":${l#*$'\\t'}\"\n"
	"\t\tif [[ ${l%%$'\\t'*} == *[:,=] ]]; then open+=(\"$w\"); else items+=(\"$w\"); fi\n"
	"\tdone\n"
	"\t(( ${#items} + ${#open} )) || return 1\n"
	"\t(( ${#open} )) && _describe -t probes 'probe' open -S ''\n"
	"\t(( ${#items} )) && _describe -t arguments 'argument' items\n"
	"\treturn 0\n"
	"}\n";

/* zsh's _describe splits "word:description" at the first unescaped colon. */
static void put_zsh_item(FILE *out, const char *word, const char *desc)
{
	fputc('\'', out);
	for (; *word; word++)
		fprintf(out, *word == ':' ? "\\:" : "%c", *word);
	fputc(':', out);
	for (; desc && *desc; desc++) {
		if (*desc == '\'')
			fputs("'\\''", out);
		else if (*desc == '\n')
			fputc(' ', out);
		else
			fputc(*desc, out);
	}
	fputs("' ", out);
}

static void print_zsh(FILE *out)
{
	const struct argp_option *o, *v[MAX_OPTIONS];
	size_t k, nv;
	const struct bt_cmd *c;
	char word[64];
	int i;

	fputs("#compdef bpftools", out);
	put_names(out);
	fputs("\n# zsh completion for bpftools; generated by 'bpftools completion zsh'\n", out);
	fputs(zsh_args, out);
	fputs("_bpftools() {\n"
	      "\tlocal cmd=${words[1]:t} p\n"
	      "\tlocal -a items\n"
	      "\t# a tool's name may be another program's (libbpf-tools' biolatency): not ours\n"
	      "\tif [[ $cmd != bpftools ]]; then\n"
	      "\t\tp=${commands[${words[1]}]:-${words[1]}}\n"
	      "\t\tif [[ -e $p && ${p:A:t} != bpftools* ]]; then\n"
	      "\t\t\t_files\n"
	      "\t\t\treturn\n"
	      "\t\tfi\n"
	      "\tfi\n"
	      "\tif [[ $cmd == bpftools ]]; then\n"
	      "\t\tif (( CURRENT == 2 )); then\n"
	      "\t\t\titems=(",
	      out);
	bt_for_each_cmd(c, i)
		put_zsh_item(out, c->name, c->summary);
	fputs("'--list:list the commands' '--version:print the version' "
	      "'--help:show help' '--install:create a link per command in a directory' "
	      "'completion:print a shell completion script' "
	      "'flamegraph:folded stacks to an SVG flame graph or a pprof profile')\n"
	      "\t\t\t_describe 'command' items\n"
	      "\t\t\treturn\n"
	      "\t\tfi\n"
	      "\t\tcmd=${words[2]}\n"
	      "\tfi\n"
	      "\tif [[ $PREFIX != -* || $PREFIX == --*=* ]]; then\n"
	      "\t\t_bpftools_args || _files\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tcase $cmd in\n",
	      out);
	bt_for_each_cmd(c, i) {
		fprintf(out, "\t%s) items=('-h:show help' '--help:show help' '--usage:show usage' ",
			c->name);
		for (k = 0, nv = cmd_options(c, v); k < nv; k++) {
			o = v[k];
			if (!shown(o))
				continue;
			if (short_key(o->key) && !(o->flags & OPTION_ALIAS)) {
				snprintf(word, sizeof(word), "-%c", o->key);
				put_zsh_item(out, word, o->doc);
			}
			if (o->name) {
				snprintf(word, sizeof(word), "--%s", o->name);
				put_zsh_item(out, word, o->doc);
			}
		}
		fputs(") ;;\n", out);
	}
	fputs("\t*) return 1 ;;\n"
	      "\tesac\n"
	      "\t_describe 'option' items\n"
	      "}\n"
	      "# autoloaded from $fpath this file is the body of _bpftools: complete now\n"
	      "if [[ $funcstack[1] == _bpftools ]]; then\n"
	      "\t_bpftools \"$@\"\n"
	      "else\n"
	      "\tcompdef _bpftools bpftools",
	      out);
	put_names(out);
	fputs("\nfi\n", out);
}

static const char fish_args[] = ARGS_FROM_BINARY
	".\n"
	"# Whether the command typed runs bpftools: a tool's name may be another program's\n"
	"# (libbpf-tools' /usr/sbin/biolatency), whose options these are not.\n"
	"function __bpftools_ours\n"
	"\tset -l p (command -s (commandline -opc)[1]); or return 0\n"
	"\tstring match -q -- 'bpftools*' (string replace -r '.*/' '' -- (realpath $p))\n"
	"end\n"
	"function __bpftools_args\n"
	"\tset -l tok (commandline -opc)\n"
	"\tset -l cur (commandline -ct)\n"
	"\tset -l bin $tok[1]\n"
	"\tstring match -q -- 'bpftools*' (string replace -r '.*/' '' -- $bin); or set bin "
	"bpftools\n"
	"\tcommand -q $bin; or set bin bpftools\n"
	"\t$bin __complete $tok $cur 2>/dev/null\n"
	"end\n";

static void fish_options(FILE *out, const struct bt_cmd *c, const char *prefix)
{
	const struct argp_option *o, *doc_of = NULL, *v[MAX_OPTIONS];
	size_t k, nv;

	fprintf(out, "%s -s h -l help -d 'Show help'\n", prefix);
	fprintf(out, "%s -l usage -d 'Show usage'\n", prefix);
	for (k = 0, nv = cmd_options(c, v); k < nv; k++) {
		o = v[k];
		if (!shown(o))
			continue;
		if (!(o->flags & OPTION_ALIAS))
			doc_of = o;
		fputs(prefix, out);
		if (short_key(o->key) && !(o->flags & OPTION_ALIAS))
			fprintf(out, " -s %c", o->key);
		if (o->name)
			fprintf(out, " -l %s", o->name);
		if (is_pid_option(o))
			fputs(" -x -a '(__bpftools_args)'", out);
		else if (o->arg)
			fputs(" -r", out);
		fputs(" -d ", out);
		put_quoted(out, doc_of ? doc_of->doc : "");
		fputc('\n', out);
	}
}

static void print_fish(FILE *out)
{
	const struct bt_cmd *c;
	char prefix[256];
	int i;

	fputs("# fish completion for bpftools; generated by 'bpftools completion fish'\n"
	      "complete -c bpftools -f\n"
	      "complete -c bpftools -n __fish_use_subcommand -l list -d 'List the commands'\n"
	      "complete -c bpftools -n __fish_use_subcommand -l version -d 'Print the version'\n"
	      "complete -c bpftools -n __fish_use_subcommand -l install -r "
	      "-d 'Create a link per command in a directory'\n"
	      "complete -c bpftools -n __fish_use_subcommand -a completion "
	      "-d 'Print a shell completion script'\n"
	      "complete -c bpftools -n '__fish_seen_subcommand_from completion' -a 'bash zsh "
	      "fish'\n"
	      "complete -c bpftools -n __fish_use_subcommand -a flamegraph "
	      "-d 'Folded stacks to an SVG flame graph or a pprof profile'\n",
	      out);
	fputs(fish_args, out);
	bt_for_each_cmd(c, i) {
		fprintf(out, "complete -c bpftools -n __fish_use_subcommand -a %s -d ", c->name);
		put_quoted(out, c->summary);
		fputc('\n', out);
		snprintf(prefix, sizeof(prefix),
			 "complete -c bpftools -n '__fish_seen_subcommand_from %s'", c->name);
		fish_options(out, c, prefix);
		fprintf(out, "%s -a '(__bpftools_args)'\n", prefix);
		snprintf(prefix, sizeof(prefix), "complete -c %s -n __bpftools_ours", c->name);
		fish_options(out, c, prefix);
		fprintf(out, "%s -a '(__bpftools_args)'\n", prefix);
	}
}

/*
 * `bpftools __complete WORD0 WORD... CUR`: the candidates for the word under the cursor, one a
 * line, "word" or "word<TAB>description", filtered by what is typed so far. The three shell
 * scripts call it, so kernel functions, tracepoints, user functions and PIDs are completed by
 * one implementation, from the running system (lib/cli/bt_complete.h).
 */

/* What the PATTERN argument of each probe-taking command accepts (docs/NAME.md). */
enum spec_kinds {
	SK_KFUNC = 1 << 0,
	SK_UFUNC = 1 << 1,
	SK_TRACEPOINT = 1 << 2,
	SK_SYSCALL = 1 << 3,
	SK_USDT = 1 << 4,
};

static const struct {
	const char *cmd;
	unsigned int kinds;
} spec_cmds[] = {
	{ "funccount", SK_KFUNC | SK_UFUNC | SK_TRACEPOINT | SK_SYSCALL | SK_USDT },
	{ "funclatency", SK_KFUNC | SK_UFUNC | SK_SYSCALL },
	{ "funcslower", SK_KFUNC | SK_UFUNC | SK_SYSCALL },
	{ "stackcount", SK_KFUNC | SK_UFUNC | SK_TRACEPOINT | SK_SYSCALL | SK_USDT },
	{ "stacksnoop", SK_KFUNC | SK_UFUNC | SK_TRACEPOINT | SK_SYSCALL | SK_USDT },
};

/* The spec prefixes offered before anything is typed, instead of every kernel function. */
static const struct {
	const char *word;
	unsigned int kind;
	const char *desc;
} spec_types[] = {
	{ "t:", SK_TRACEPOINT, "tracepoint: t:CATEGORY:EVENT" },
	{ "tracepoint:", SK_TRACEPOINT, "tracepoint: tracepoint:CATEGORY:EVENT" },
	{ "syscall:", SK_SYSCALL, "system call: syscall:NAME" },
	{ "u:", SK_USDT, "USDT probe: u:LIB:PROBE" },
	{ "c:", SK_UFUNC, "C library function: c:FUNC" },
	{ "p::", SK_KFUNC, "kernel function: p::FUNC, or FUNC" },
};

struct cand {
	char *word;
	char *desc;
};

struct cands {
	struct cand *v;
	size_t n, cap;
	const char *pre; /* put before every word: the part of the spec already typed */
	int err;
};

static int add_cand(const char *word, const char *desc, void *arg)
{
	struct cands *c = arg;
	struct cand *nv;

	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		nv = realloc(c->v, c->cap * sizeof(*nv));
		if (!nv)
			return c->err = -ENOMEM;
		c->v = nv;
	}
	if (asprintf(&c->v[c->n].word, "%s%s", c->pre ? c->pre : "", word) < 0)
		return c->err = -ENOMEM;
	c->v[c->n].desc = desc ? strdup(desc) : NULL;
	c->n++;
	return 0;
}

static int cmp_cand(const void *a, const void *b)
{
	return strcmp(((const struct cand *)a)->word, ((const struct cand *)b)->word);
}

static void print_cands(FILE *out, struct cands *c)
{
	size_t i;

	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), cmp_cand);
	for (i = 0; i < c->n; i++) {
		if (i && !strcmp(c->v[i].word, c->v[i - 1].word))
			continue;
		fputs(c->v[i].word, out);
		if (c->v[i].desc) {
			fputc('\t', out);
			fputs(c->v[i].desc, out);
		}
		fputc('\n', out);
	}
}

static void free_cands(struct cands *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].word);
		free(c->v[i].desc);
	}
	free(c->v);
}

/* The option a word names ("-p", "--pid"; the last letter of "-vp"), or NULL. */
static const struct argp_option *find_option(const struct bt_cmd *cmd, const char *w,
					     const char **arg)
{
	const struct argp_option *o, *real = NULL, *v[MAX_OPTIONS];
	size_t k, nv, len;
	const char *eq;

	*arg = NULL;
	if (w[0] != '-' || !w[1])
		return NULL;
	for (k = 0, nv = cmd_options(cmd, v); k < nv; k++) {
		o = v[k];
		/* an alias takes its argument from the option it follows */
		if (!(o->flags & OPTION_ALIAS))
			real = o;
		if (w[1] == '-' && o->name) {
			eq = strchr(w, '=');
			len = eq ? (size_t)(eq - w - 2) : strlen(w + 2);
			if (strlen(o->name) == len && !strncmp(o->name, w + 2, len)) {
				*arg = eq ? eq + 1 : NULL;
				return real;
			}
		} else if (w[1] != '-' && short_key(o->key) && o->key == w[strlen(w) - 1]) {
			return real;
		}
	}
	return NULL;
}

/* -p 123, -p123, --pid 123, --pid=123 among the words before the cursor: the first PID. */
static pid_t given_pid(const struct bt_cmd *cmd, char **w, int n)
{
	const struct argp_option *o;
	const char *arg;
	int i;

	for (i = 0; i < n; i++) {
		o = find_option(cmd, w[i], &arg);
		if (!is_pid_option(o))
			continue;
		if (arg)
			return atoi(arg);
		if (w[i][1] != '-' && w[i][2])
			return atoi(w[i] + 2);
		if (i + 1 < n)
			return atoi(w[i + 1]);
	}
	return 0;
}

static void complete_pids(struct cands *c, const char *cur, const char *before)
{
	const char *comma = strrchr(cur, ',');
	char pre[256];

	/* "-p 12,34" (PIDS): complete the last of the list */
	snprintf(pre, sizeof(pre), "%s%.*s", before, comma ? (int)(comma - cur + 1) : 0, cur);
	c->pre = pre;
	bt_complete_pids(NULL, comma ? comma + 1 : cur, add_cand, c);
	c->pre = NULL;
}

static void complete_spec(struct cands *c, unsigned int kinds, const char *cur, pid_t pid)
{
	size_t i, type_len = 0;
	const char *rest, *colon;
	char pre[4096], module[4096];

	if (!*cur) {
		for (i = 0; i < sizeof(spec_types) / sizeof(spec_types[0]); i++)
			if (kinds & spec_types[i].kind)
				add_cand(spec_types[i].word, spec_types[i].desc, c);
		return;
	}
	/* p:FUNC, p::FUNC, p:LIB:FUNC, r:...: what follows the type is completed alike */
	if ((cur[0] == 'p' || cur[0] == 'r') && cur[1] == ':')
		type_len = 2;
	rest = cur + type_len;
	c->pre = pre;
	if (type_len && rest[0] == ':') {
		snprintf(pre, sizeof(pre), "%.3s", cur);
		if (kinds & SK_KFUNC)
			bt_complete_kfuncs(rest + 1, add_cand, c);
	} else if (!type_len && (kinds & SK_TRACEPOINT) && !strncmp(cur, "t:", 2)) {
		strcpy(pre, "t:");
		bt_complete_tracepoints(NULL, cur + 2, add_cand, c);
	} else if (!type_len && (kinds & SK_TRACEPOINT) && !strncmp(cur, "tracepoint:", 11)) {
		strcpy(pre, "tracepoint:");
		bt_complete_tracepoints(NULL, cur + 11, add_cand, c);
	} else if (!type_len && (kinds & SK_SYSCALL) && !strncmp(cur, "syscall:", 8)) {
		strcpy(pre, "syscall:");
		bt_complete_syscalls(NULL, cur + 8, add_cand, c);
	} else if (!type_len && (kinds & SK_USDT) && !strncmp(cur, "u:", 2)) {
		/* u:LIB:PROVIDER:PROBE, once LIB is typed */
		colon = strchr(cur + 2, ':');
		if (colon) {
			snprintf(module, sizeof(module), "%.*s", (int)(colon - cur - 2), cur + 2);
			snprintf(pre, sizeof(pre), "%.*s", (int)(colon + 1 - cur), cur);
			bt_complete_usdt(module, pid, colon + 1, add_cand, c);
		}
	} else if ((colon = strchr(rest, ':'))) {
		/* LIB:FUNC, /path/bin:FUNC: the module as the attach layer would find it */
		snprintf(pre, sizeof(pre), "%.*s", (int)(colon + 1 - cur), cur);
		snprintf(module, sizeof(module), "%.*s", (int)(colon - rest), rest);
		if (kinds & SK_UFUNC)
			bt_complete_ufuncs(module, pid, colon + 1, add_cand, c);
	} else if (rest[0] != '/' && rest[0] != '.' && *rest && (kinds & SK_KFUNC)) {
		/* (a path is the shell's to complete, up to its ':') */
		snprintf(pre, sizeof(pre), "%.*s", (int)type_len, cur);
		bt_complete_kfuncs(rest, add_cand, c);
	}
	c->pre = NULL;
	if (type_len)
		return;
	for (i = 0; i < sizeof(spec_types) / sizeof(spec_types[0]); i++)
		if ((kinds & spec_types[i].kind) && strlen(cur) < strlen(spec_types[i].word) &&
		    !strncmp(spec_types[i].word, cur, strlen(cur)))
			add_cand(spec_types[i].word, spec_types[i].desc, c);
}

int bt_completion_complete(FILE *out, int n, char **w)
{
	const struct argp_option *o = NULL;
	const struct bt_cmd *cmd;
	struct cands c = {};
	const char *name, *cur, *arg = NULL;
	unsigned int kinds = 0;
	char before[256];
	int first = 1;
	size_t i;

	if (n < 2)
		return 0;
	name = strrchr(w[0], '/') ? strrchr(w[0], '/') + 1 : w[0];
	if (!strcmp(name, "bpftools")) {
		if (n < 3)
			return 0; /* the command itself: the scripts list those */
		name = w[1];
		first = 2;
	}
	cmd = bt_cmd_find(name);
	if (!cmd)
		return 0;
	cur = w[n - 1];
	if (cur[0] == '-') {
		/* --pid=12; other options are the scripts' (generated from the same tables) */
		o = find_option(cmd, cur, &arg);
		if (is_pid_option(o) && arg) {
			snprintf(before, sizeof(before), "%.*s", (int)(arg - cur), cur);
			complete_pids(&c, arg, before);
		}
		goto print;
	}
	if (n - 2 >= first)
		o = find_option(cmd, w[n - 2], &arg);
	if (takes_arg(o) && !arg) {
		/* the value of the option before: a PID, or nothing to offer */
		if (is_pid_option(o))
			complete_pids(&c, cur, "");
		goto print;
	}
	for (i = 0; i < sizeof(spec_cmds) / sizeof(spec_cmds[0]); i++)
		if (!strcmp(spec_cmds[i].cmd, cmd->name))
			kinds = spec_cmds[i].kinds;
	if (kinds)
		complete_spec(&c, kinds, cur, given_pid(cmd, w + first, n - 1 - first));
print:
	print_cands(out, &c);
	free_cands(&c);
	return c.err;
}

int bt_completion_print(FILE *out, const char *shell)
{
	if (!strcmp(shell, "bash"))
		print_bash(out);
	else if (!strcmp(shell, "zsh"))
		print_zsh(out);
	else if (!strcmp(shell, "fish"))
		print_fish(out);
	else
		return bt_usage_err("unknown shell '%s'; expected bash, zsh or fish", shell);
	return 0;
}
