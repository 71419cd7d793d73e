/* A plugin with one literal title, built twice (TITLE "alpha" and
 * "omega") with the same layout, so that the second, loaded after the
 * first is unloaded, tends to be mapped where the first was and its
 * title to lie at the very address the first's did (tests/tree.c). */
const char *plugin_title(void);
const char *plugin_title(void)
{
    return TITLE;
}
