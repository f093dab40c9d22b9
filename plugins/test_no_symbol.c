/* Built only for tests: a shared object that is not a decoder at all (no
 * dladbg_decoder symbol); dladbg must refuse it with a message. */
int dladbg_test_not_a_decoder(void);

int dladbg_test_not_a_decoder(void)
{
    return 42;
}
