/* review.c - not written yet. */
typedef int review_placeholder;
