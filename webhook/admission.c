/* webhook/admission.c - not written yet. */
typedef int admission_placeholder;
