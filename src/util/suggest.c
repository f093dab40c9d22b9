/* Nearest-name suggestions for mistyped words. */
#include "suggest.h"

#include <ctype.h>
#include <string.h>

#define MAX_WORD 63
#define FAR 1000u

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
    unsigned m = a < b ? a : b;
    return m < c ? m : c;
}

unsigned suggest_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > MAX_WORD || m > MAX_WORD)
        return FAR;
    unsigned d[MAX_WORD + 1][MAX_WORD + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            unsigned cost = ca != cb;
            d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < d[i][j])
                d[i][j] = d[i - 2][j - 2] + 1; /* "brkea": a swap of neighbours */
        }
    return d[n][m];
}

void suggest_init(struct suggest *s, const char *word)
{
    s->word = word;
    s->best = NULL;
    s->dist = FAR;
}

void suggest_consider(struct suggest *s, const char *candidate)
{
    unsigned dist = suggest_distance(s->word, candidate);
    if (dist < s->dist) {
        s->dist = dist;
        s->best = candidate;
    }
}

const char *suggest_best(const struct suggest *s)
{
    size_t n = strlen(s->word);
    /* one typo in a short word, two in a longer one: more is a different word */
    unsigned reach = n <= 4 ? 1 : n <= 8 ? 2 : 3;
    return s->best && s->dist > 0 && s->dist <= reach ? s->best : NULL;
}
