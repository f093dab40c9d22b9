/* "did you mean ...?": the candidate closest to a word the user mistyped
 * (a command, an enum value, an interrupt name), when one is close enough
 * to be the likely intent.  Case is ignored. */
#ifndef DLADBG_SUGGEST_H
#define DLADBG_SUGGEST_H

struct suggest {
    const char *word;
    const char *best; /* closest candidate so far, NULL: none close enough */
    unsigned dist;
};

void suggest_init(struct suggest *s, const char *word);
/* Offer a candidate (kept by pointer: it must outlive the suggestion). */
void suggest_consider(struct suggest *s, const char *candidate);
/* The closest candidate within reach of the word's length, or NULL. */
const char *suggest_best(const struct suggest *s);

/* Optimal string alignment distance (insertions, deletions, substitutions
 * and swaps of neighbours each cost 1), case-insensitive; words longer than
 * 63 characters count as far from everything. */
unsigned suggest_distance(const char *a, const char *b);

#endif
