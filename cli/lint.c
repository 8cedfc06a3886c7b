/* cli/lint.c - not written yet. */
typedef int lint_placeholder;
