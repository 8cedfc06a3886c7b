/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * completion.c - `gpumend completion bash|zsh|fish`: the shell completion
 * scripts. Each reads the commands, options and option values from
 * gpumend's own --help when it completes, so a new option needs no change
 * here.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "msg.h"

static const char bash_script[] =
	"# bash completion for gpumend: gpumend completion bash\n"
	"# (source it, or install it as /usr/share/bash-completion/completions/gpumend).\n"
	"# Commands, options and option values are read from gpumend's own --help.\n"
	"\n"
	"_gpumend_commands() {\n"
	"\t\"$1\" --help 2>/dev/null |\n"
	"\t\tawk '/^Commands:/ { c = 1; next } c && /^$/ { exit } c { print $1 }'\n"
	"}\n"
	"\n"
	"_gpumend() {\n"
	"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	"\tlocal prog=${COMP_WORDS[0]} cmd=\"\" sub=\"\" help values i\n"
	"\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	"\t\tcase ${COMP_WORDS[i]} in\n"
	"\t\t-*) ;;\n"
	"\t\t*)\n"
	"\t\t\tif [[ -z $cmd ]]; then\n"
	"\t\t\t\tcmd=${COMP_WORDS[i]}\n"
	"\t\t\telif [[ $cmd == certs && ${COMP_WORDS[i]} == check ]]; then\n"
	"\t\t\t\tsub=check\n"
	"\t\t\tfi\n"
	"\t\t\t;;\n"
	"\t\tesac\n"
	"\tdone\n"
	"\tif [[ -z $cmd ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"$(_gpumend_commands \"$prog\") --help --version\" -- \"$cur\"))\n"
	"\t\treturn\n"
	"\tfi\n"
	"\tif [[ $cmd == help ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"$(_gpumend_commands \"$prog\")\" -- \"$cur\"))\n"
	"\t\treturn\n"
	"\tfi\n"
	"\thelp=$(\"$prog\" $cmd $sub --help 2>/dev/null)\n"
	"\t# the option before the cursor takes a value: one of a|b|c, or a path\n"
	"\tif [[ $prev == -* ]]; then\n"
	"\t\tvalues=$(printf '%s\\n' \"$help\" | grep -oE -- \"$prev[ =][a-z-]+(\\|[a-z-]+)+\" |\n"
	"\t\t\thead -n 1 | sed 's/^[^ =]*[ =]//' | tr '|' ' ')\n"
	"\t\tif [[ -n $values ]]; then\n"
	"\t\t\tCOMPREPLY=($(compgen -W \"$values\" -- \"$cur\"))\n"
	"\t\t\treturn\n"
	"\t\tfi\n"
	"\t\tif printf '%s\\n' \"$help\" | grep -qE -- \"$prev[ =][A-Z]+\"; then\n"
	"\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	"\t\t\treturn\n"
	"\t\tfi\n"
	"\tfi\n"
	"\tif [[ $cur == -* ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"$(printf '%s\\n' \"$help\" |\n"
	"\t\t\tgrep -oE -- '(^|[][ ,|(])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[^-]*//' | sort -u)\" -- \"$cur\"))\n"
	"\t\treturn\n"
	"\tfi\n"
	"\tif [[ $cmd == completion ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\"))\n"
	"\t\treturn\n"
	"\tfi\n"
	"\tif [[ $cmd == certs && -z $sub ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"check\" -- \"$cur\"))\n"
	"\t\treturn\n"
	"\tfi\n"
	"\tif [[ $cmd == rules ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"$(\"$prog\" rules 2>/dev/null | awk 'NR > 1 { print $1 }')\" -- \"$cur\"))\n"
	"\t\treturn\n"
	"\tfi\n"
	"\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	"}\n"
	"complete -o filenames -F _gpumend gpumend\n";

static const char zsh_script[] =
	"#compdef gpumend\n"
	"# zsh completion for gpumend: gpumend completion zsh\n"
	"# (source it after compinit, or install it as _gpumend in $fpath).\n"
	"# Commands, options and option values are read from gpumend's own --help.\n"
	"\n"
	"_gpumend() {\n"
	"\tlocal prog=$words[1] cmd=\"\" sub=\"\" help prev=$words[CURRENT-1] w\n"
	"\tlocal -a cmds values\n"
	"\tcmds=(${(f)\"$($prog --help 2>/dev/null |\n"
	"\t\tawk '/^Commands:/ { c = 1; next } c && /^$/ { exit } c { print $1 }')\"})\n"
	"\tfor w in $words[2,CURRENT-1]; do\n"
	"\t\t[[ $w == -* ]] && continue\n"
	"\t\tif [[ -z $cmd ]]; then\n"
	"\t\t\tcmd=$w\n"
	"\t\telif [[ $cmd == certs && $w == check ]]; then\n"
	"\t\t\tsub=check\n"
	"\t\tfi\n"
	"\tdone\n"
	"\tif [[ -z $cmd ]]; then\n"
	"\t\tcompadd -- $cmds --help --version\n"
	"\t\treturn\n"
	"\tfi\n"
	"\tif [[ $cmd == help ]]; then\n"
	"\t\tcompadd -- $cmds\n"
	"\t\treturn\n"
	"\tfi\n"
	"\thelp=$($prog $cmd $sub --help 2>/dev/null)\n"
	"\tif [[ $prev == -* ]]; then\n"
	"\t\tvalues=(${(s:|:)\"$(print -r -- $help | grep -oE -- \"${prev}[ =][a-z-]+(\\|[a-z-]+)+\" |\n"
	"\t\t\thead -n 1 | sed 's/^[^ =]*[ =]//')\"})\n"
	"\t\tif (( $#values )); then\n"
	"\t\t\tcompadd -- $values\n"
	"\t\t\treturn\n"
	"\t\tfi\n"
	"\t\tif print -r -- $help | grep -qE -- \"${prev}[ =][A-Z]+\"; then\n"
	"\t\t\t_files\n"
	"\t\t\treturn\n"
	"\t\tfi\n"
	"\tfi\n"
	"\tif [[ $PREFIX == -* ]]; then\n"
	"\t\tcompadd -- ${(f)\"$(print -r -- $help | grep -oE -- '(^|[][ ,|(])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[^-]*//' | sort -u)\"}\n"
	"\t\treturn\n"
	"\tfi\n"
	"\tcase $cmd in\n"
	"\tcompletion) compadd -- bash zsh fish ;;\n"
	"\tcerts) [[ -z $sub ]] && compadd -- check ;;\n"
	"\trules) compadd -- ${(f)\"$($prog rules 2>/dev/null | awk 'NR > 1 { print $1 }')\"} ;;\n"
	"\t*) _files ;;\n"
	"\tesac\n"
	"}\n"
	"\n"
	"if [[ $funcstack[1] == _gpumend ]]; then\n"
	"\t_gpumend \"$@\"\n"
	"else\n"
	"\tcompdef _gpumend gpumend\n"
	"fi\n";

static const char fish_script[] =
	"# fish completion for gpumend: gpumend completion fish\n"
	"# (source it, or install it as gpumend.fish in a completions directory).\n"
	"# Commands, options and option values are read from gpumend's own --help.\n"
	"\n"
	"function __gpumend_commands\n"
	"    command gpumend --help 2>/dev/null | awk '/^Commands:/ { c = 1; next } c && /^$/ { exit } c { print $1 }'\n"
	"end\n"
	"\n"
	"# the help of the command being completed (\"certs check\" for certs check)\n"
	"function __gpumend_help\n"
	"    set -l cmd\n"
	"    for w in (commandline -opc)[2..-1]\n"
	"        string match -q -- '-*' $w; and continue\n"
	"        if test -z \"$cmd\"\n"
	"            set cmd $w\n"
	"        else if test \"$cmd\" = certs -a \"$w\" = check\n"
	"            set cmd certs check\n"
	"        end\n"
	"    end\n"
	"    command gpumend $cmd --help 2>/dev/null\n"
	"end\n"
	"\n"
	"function __gpumend_rules\n"
	"    command gpumend rules 2>/dev/null | awk 'NR > 1 { print $1 }'\n"
	"end\n"
	"\n"
	"function __gpumend_options\n"
	"    __gpumend_help | grep -oE -- '(^|[][ ,|(])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[^-]*//' | sort -u\n"
	"end\n"
	"\n"
	"# the values of the option before the cursor, when it takes one of a|b|c\n"
	"function __gpumend_values\n"
	"    set -l prev (commandline -opc)[-1]\n"
	"    string match -q -- '-*' $prev; or return 1\n"
	"    set -l values (__gpumend_help | grep -oE -- $prev'[ =][a-z-]+(\\|[a-z-]+)+' | head -n 1 | sed 's/^[^ =]*[ =]//' | tr '|' '\\n')\n"
	"    test (count $values) -gt 0; or return 1\n"
	"    printf '%s\\n' $values\n"
	"end\n"
	"\n"
	"complete -c gpumend -f -n __fish_use_subcommand -a '(__gpumend_commands)'\n"
	"complete -c gpumend -f -n __fish_use_subcommand -a '--help --version'\n"
	"complete -c gpumend -f -n '__fish_seen_subcommand_from help' -a '(__gpumend_commands)'\n"
	"complete -c gpumend -f -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n"
	"complete -c gpumend -f -n '__fish_seen_subcommand_from certs; and not __fish_seen_subcommand_from check' -a check\n"
	"complete -c gpumend -f -n '__fish_seen_subcommand_from rules; and not __gpumend_values >/dev/null' -a '(__gpumend_rules)'\n"
	"complete -c gpumend -f -n 'not __fish_use_subcommand; and __gpumend_values >/dev/null' -a '(__gpumend_values)'\n"
	"complete -c gpumend -n 'not __fish_use_subcommand; and string match -q -- \"-*\" (commandline -ct)' -a '(__gpumend_options)'\n";

static const struct completion_shell {
	const char *name;
	const char *script;
} shells[] = {
	{ "bash", bash_script },
	{ "zsh", zsh_script },
	{ "fish", fish_script },
};

static const char completion_usage[] =
	"usage: gpumend completion bash|zsh|fish\n"
	"\n"
	"Prints the shell completion script for bash, zsh or fish. To load it\n"
	"into the running shell:\n"
	"  bash: source <(gpumend completion bash)\n"
	"  zsh:  source <(gpumend completion zsh)    (after compinit)\n"
	"  fish: gpumend completion fish | source\n"
	"The Debian package and `make install` install them for every shell.\n"
	"\n"
	"  -h, --help   show this help\n";

int cmd_completion(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(completion_usage, stdout);
		return 0;
	}
	if (argc != 2) {
		msg_error("completion takes one shell: bash, zsh or fish");
		fputs(completion_usage, stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++) {
		if (!strcmp(argv[1], shells[i].name)) {
			fputs(shells[i].script, stdout);
			return 0;
		}
	}
	msg_error("no completion for '%s': bash, zsh or fish", argv[1]);
	return 2;
}
