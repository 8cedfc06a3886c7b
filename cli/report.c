/* cli/report.c - not written yet. */
typedef int report_placeholder;
