/* The error table: names, messages, the unknown code. */
#include <criterion/criterion.h>
#include <string.h>

#include <pt/pt.h>

Test(errors, every_code_has_a_distinct_name_and_message)
{
    static const int codes[] = {
#define X(name, value, msg) PT_##name,
        PT_ERRNO_MAP(X)
#undef X
    };
    size_t n = sizeof codes / sizeof *codes;
    cr_assert_geq(n, 10);
    for (size_t i = 0; i < n; i++) {
        cr_assert_lt(codes[i], 0, "codes are negative");
        cr_assert_gt(codes[i], PT__ERR_LAST, "PT__ERR_LAST bounds the table");
        cr_assert_str_neq(pt_strerror(codes[i]), "unknown error", "%d", codes[i]);
        cr_assert_eq(strncmp(pt_err_name(codes[i]), "PT_E", 4), 0, "%s", pt_err_name(codes[i]));
        for (size_t j = 0; j < i; j++) {
            cr_assert_neq(codes[i], codes[j]);
            cr_assert_str_neq(pt_err_name(codes[i]), pt_err_name(codes[j]));
        }
    }
    cr_assert_str_eq(pt_err_name(PT_EMISMATCH), "PT_EMISMATCH");
    cr_assert_str_eq(pt_strerror(PT_ENOSTART), "stop without a start");
}

Test(errors, unknown_codes_read_unknown_never_null)
{
    cr_assert_str_eq(pt_strerror(-9999), "unknown error");
    cr_assert_str_eq(pt_strerror(42), "unknown error");
    cr_assert_str_eq(pt_err_name(-9999), "PT_UNKNOWN");
    cr_assert_str_eq(pt_strerror(0), "success");
    cr_assert_eq(pt_error_count_of(NULL, PT_EINVAL), 0);
}

Test(errors, version_matches_the_header)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", PT_VERSION_MAJOR, PT_VERSION_MINOR, PT_VERSION_PATCH);
    cr_assert_str_eq(pt_version(), want);
}
