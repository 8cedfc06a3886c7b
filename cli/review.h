/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * review.h - `gpumend review`: answers an AdmissionReview offline, exactly
 * as gpumend-webhook would (both go through lib/admission.c).
 */
#ifndef GPUMEND_REVIEW_H
#define GPUMEND_REVIEW_H

/*
 * `gpumend review [-c FILE] [FILE|-]`: reads one AdmissionReview (v1 or
 * v1beta1) from FILE or stdin and prints the response the webhook would
 * send, byte for byte. Returns the exit status: 0 when the response allows
 * the object, 1 when it denies it, 2 when the input cannot be read or has
 * no answer (the webhook's HTTP 400: the message goes to stderr).
 */
int cmd_review(int argc, char **argv);

#endif
