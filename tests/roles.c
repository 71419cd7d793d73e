/* Warp roles: a record buffer per role, each with its own phases, folded
 * with pt_dev_fold_role() into a section of the launch of that role's
 * name. Each role lasts the launch (the roles ran at once) and its phases
 * and "(unattributed)" add up to it, as a launch's own do; a role folds
 * once per launch; the reports show each; the device side writes a role's
 * warps into its buffer alone (PT_DEV_BEGIN_ROLE in host mode, where the
 * one thread is warp 0, and PT_DEV_BEGIN_IF for the others). */
#include <criterion/criterion.h>
#include <string.h>

#define PT_DEV_PER_WARP
#include <pt/pt_dev.h>

#include "common.h"
#include "cuda_fake.h"
#include "records_fake.h"

FAKE_RUN_SUITE(roles, PT_CPU);

#define MS 1000000LL
#define EPS 1e-9

static const char *const prod_names[] = { "wait empty", "load" };
static const char *const cons_names[] = { "wait full", "math", "release" };

/* Two blocks of one producer warp and two consumer warps, over 2 ms: the
 * producer waits 0.2 ms and loads 1.6 ms; each consumer waits 1.0 ms,
 * computes 0.6 ms and releases 0.2 ms (at 2 cycles per ns). */
static void records(pt_dev_records **prod, pt_dev_records **cons)
{
    *prod = pt_dev_records_create(t, 2, 2, prod_names, PT_DEV_HOST, 0);
    *cons = pt_dev_records_create(t, 4, 3, cons_names, PT_DEV_HOST, 0);
    cr_assert(*prod && *cons, "%s", pt_last_error(t));
    for (int b = 0; b < 2; b++)
        test_slot(*prod, b, b, 4 * MS, 0, 2 * MS, (long long[]){ 2 * MS / 5, 16 * MS / 5 }, NULL);
    for (int w = 0; w < 4; w++)
        test_slot(*cons, w, w / 2, 4 * MS, 0, 2 * MS,
                  (long long[]){ 2 * MS, 6 * MS / 5, 2 * MS / 5 }, NULL);
}

static void launch(const char *title)
{
    pt_start(t, title);
    clk.now += 2 * MS;
    pt_stop(t, title);
}

static pt_section_stats get(const char *path)
{
    pt_section_stats st;
    const pt_section *s = pt_find(t, path);
    cr_assert_not_null(s, "%s", path);
    cr_assert_eq(pt_section_get(t, s, &st), 0);
    return st;
}

/* Each role's rows add up to the launch. */
static void assert_roles(double launch_ms)
{
    cr_assert_float_eq(get("step/producer").total_ms, launch_ms, EPS);
    cr_assert_float_eq(get("step/consumer").total_ms, launch_ms, EPS);
    double p = get("step/producer/wait empty").total_ms + get("step/producer/load").total_ms +
               get("step/producer/(unattributed)").total_ms;
    double c = get("step/consumer/wait full").total_ms + get("step/consumer/math").total_ms +
               get("step/consumer/release").total_ms + get("step/consumer/(unattributed)").total_ms;
    cr_assert_float_eq(p, launch_ms, EPS, "the producer's rows: %g", p);
    cr_assert_float_eq(c, launch_ms, EPS, "the consumers' rows: %g", c);
}

Test(roles, each_role_is_the_launch_and_its_phases_add_up_to_it)
{
    pt_dev_records *prod, *cons;
    records(&prod, &cons);
    launch("step");
    cr_assert_eq(pt_dev_fold_role(t, prod, "step", "producer"), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_fold_role(t, cons, "step", "consumer"), 0, "%s", pt_last_error(t));
    assert_roles(2.0);
    /* Two producer blocks side by side over 2 ms: 0.2 ms waiting, 1.6
     * loading; four consumer warps, two at once on each SM. */
    cr_assert_float_eq(get("step/producer/load").total_ms, 1.6, EPS);
    cr_assert_float_eq(get("step/producer/load").block_mean_ms, 1.6, EPS);
    cr_assert_float_eq(get("step/consumer/wait full").total_ms, 1.0, EPS);
    cr_assert_eq(get("step/consumer/math").blocks, 4, "a record per consumer warp");
    cr_assert_eq(get("step/consumer").count, 1);
    cr_assert(!get("step/consumer").gpu, "a role is of its launch's kind, here the CPU's");
    cr_assert_eq(get("step/consumer").sm_resident, 2, "two consumer warps at once on an SM");
    /* A role folds once per launch. */
    cr_assert_eq(pt_dev_fold_role(t, prod, "step", "producer"), PT_ESTATE);
    cr_assert(strstr(pt_last_error(t), "\"step\", \"producer\"): its latest occurrence is folded "
                                       "already"), "%s", pt_last_error(t));
    /* The next launch folds again: each role counts its launches. */
    launch("step");
    cr_assert_eq(pt_dev_fold_role(t, prod, "step", "producer"), PT_ESTATE,
                 "records folded and not reset are said");
    cr_assert_eq(pt_dev_fold_role(t, cons, "step", "consumer"), PT_ESTATE);
    cr_assert_eq(get("step/producer").count, 2);
    assert_roles(4.0);
    pt_dev_records_free(prod);
    pt_dev_records_free(cons);
}

Test(roles, bad_arguments_are_refused)
{
    pt_dev_records *prod, *cons;
    records(&prod, &cons);
    launch("step");
    cr_assert_eq(pt_dev_fold_role(t, prod, "step", NULL), PT_EINVAL);
    cr_assert_eq(pt_dev_fold_role(NULL, prod, "step", "producer"), 0, "a NULL timing: a no-op");
    cr_assert_eq(pt_dev_fold_role(t, prod, "nothing", "producer"), PT_ENOTFOUND);
    /* A role's title taken by a phase of the launch: no role. */
    cr_assert_eq(pt_dev_fold(t, cons, "step"), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_fold_role(t, prod, "step", "math"), PT_EINVAL);
    cr_assert(strstr(pt_last_error(t), "no role"), "%s", pt_last_error(t));
    pt_dev_records_free(prod);
    pt_dev_records_free(cons);
}

/* On the fake GPU the roles wait on the launch's events together and
 * each folds once it resolves. */
Test(roles, roles_of_a_pending_launch_fold_when_it_resolves)
{
    pt_destroy(t);
    t = test_timing(&clk, "roles run", PT_GPU_EVENTS);
    pt_dev_records *prod = pt_dev_records_create(t, 2, 2, prod_names, 0, 0);
    pt_dev_records *cons = pt_dev_records_create(t, 4, 3, cons_names, 0, 0);
    cr_assert(prod && cons, "%s", pt_last_error(t));
    pt_dev_reset(prod, NULL);
    pt_dev_reset(cons, NULL);
    pt_start_gpu(t, "step", NULL);
    for (int b = 0; b < 2; b++)
        test_slot(prod, b, b, 4 * MS, 0, 2 * MS, (long long[]){ 2 * MS / 5, 16 * MS / 5 }, NULL);
    for (int w = 0; w < 4; w++)
        test_slot(cons, w, w / 2, 4 * MS, 0, 2 * MS,
                  (long long[]){ 2 * MS, 6 * MS / 5, 2 * MS / 5 }, NULL);
    fake.now_ms += 2.0;
    pt_stop_gpu(t, "step", NULL);
    fake.not_ready = 1;
    cr_assert_eq(pt_dev_fold_role(t, prod, "step", "producer"), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_fold_role(t, cons, "step", "consumer"), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_fold_role(t, cons, "step", "consumer"), PT_ESTATE, "once, pending too");
    cr_assert_null(pt_find(t, "step/consumer/math"), "nothing folded before the launch resolves");
    fake.not_ready = 0;
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    assert_roles(2.0);
    cr_assert(get("step/producer").gpu, "the role of a GPU launch is of the GPU's kind");
    pt_dev_records_free(prod);
    pt_dev_records_free(cons);
}

/* The text report shows a role as a row of the launch with its phases;
 * JSON and ptreport keep it. */
Test(roles, reports_show_each_role)
{
    pt_dev_records *prod, *cons;
    records(&prod, &cons);
    launch("step");
    pt_dev_fold_role(t, prod, "step", "producer");
    pt_dev_fold_role(t, cons, "step", "consumer");
    char *text = fake_report(t);
    cr_assert(strstr(text, "\n  producer ") && strstr(text, "\n    load ") &&
              strstr(text, "\n  consumer ") && strstr(text, "\n    math "), "%s", text);
    free(text);
    char args[512];
    cr_assert_eq(pt_export_json(t, test_path(dir, "run.json")), 0, "%s", pt_last_error(t));
    snprintf(args, sizeof args, "show '%s'", test_path(dir, "run.json"));
    cr_assert_eq(fake_ptreport(dir, args), 0);
    char *shown = test_read_file(test_path(dir, "out.txt"));
    cr_assert(strstr(shown, "\n    math "), "%s", shown);
    free(shown);
    pt_dev_records_free(prod);
    pt_dev_records_free(cons);
}

/* The device side in host mode: a role's warps write its buffer alone. On
 * the CPU the one thread is warp 0 of its block, so PT_DEV_BEGIN_ROLE
 * keeps it for a role from warp 0 and not for one from warp 1; a body run
 * per warp names the warp with PT_DEV_BEGIN_IF. */
Test(roles, a_role_records_its_own_warps_only)
{
    pt_dev_records *prod = pt_dev_records_create(t, 1, 2, prod_names, PT_DEV_HOST, 0);
    pt_dev_records *cons = pt_dev_records_create(t, 2, 3, cons_names, PT_DEV_HOST, 0);
    pt_dev_buf p = pt_dev_arg(prod), c = pt_dev_arg(cons);
    {
        PT_DEV_BEGIN_ROLE(p, 0, 1);
        PT_DEV_MARK(1);
        PT_DEV_END(p);
    }
    {
        PT_DEV_BEGIN_ROLE(c, 1, 2); /* warp 0 is no consumer */
        PT_DEV_MARK(1);
        PT_DEV_END(c);
    }
    for (int warp = 1; warp <= 2; warp++) {
        PT_DEV_BEGIN_IF(c, warp >= 1, warp - 1);
        PT_DEV_MARK(2);
        PT_DEV_END(c);
    }
    cr_assert_eq(p.data[PT_DEV_HDR + PT_DEV_S_DONE], 1);
    cr_assert_eq(p.data[PT_DEV_HDR + PT_DEV_SLOT_HDR + 3], 1, "the producer's load");
    for (int w = 0; w < 2; w++) {
        const long long *r = c.data + PT_DEV_HDR + w * PT_DEV_SLOT_WORDS(3, 0);
        cr_assert_eq(r[PT_DEV_S_DONE], 1, "consumer warp %d", w + 1);
        cr_assert_eq(r[PT_DEV_SLOT_HDR + 3], 0, "no math from warp 0's BEGIN_ROLE");
        cr_assert_eq(r[PT_DEV_SLOT_HDR + 5], 1, "its release");
    }
    cr_assert_eq(c.data[PT_DEV_H_BAD_SLOT], 0);
    pt_dev_records_free(prod);
    pt_dev_records_free(cons);
}
