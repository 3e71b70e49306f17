/* test_eventq.c -- the event heap: order, FIFO ties, cancel, reschedule,
 * reserved places, and a model-based comparison with a sorted list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <glib.h>
#include <stdio.h>

#include "eventq.h"

static void test_eventq_pop_orders_by_time(void **state)
{
    (void)state;
    SimEventQ q;
    sim_eventq_init(&q);
    SimEvent e[5];
    SimTime when[5] = {50, 10, 40, 0, UINT64_MAX - 1};
    for (int i = 0; i < 5; i++) {
        sim_event_init(&e[i], 0, &e[i]);
        sim_eventq_schedule(&q, &e[i], when[i]);
    }
    assert_true(sim_eventq_check(&q));
    SimTime expect[5] = {0, 10, 40, 50, UINT64_MAX - 1};
    for (int i = 0; i < 5; i++) {
        SimEvent *p = sim_eventq_pop(&q);
        assert_non_null(p);
        assert_int_equal(p->when, expect[i]);
        assert_false(sim_event_pending(p));
    }
    assert_null(sim_eventq_pop(&q));
    sim_eventq_destroy(&q);
}

static void test_eventq_equal_times_are_fifo(void **state)
{
    (void)state;
    SimEventQ q;
    sim_eventq_init(&q);
    SimEvent e[100];
    for (int i = 0; i < 100; i++) {
        sim_event_init(&e[i], (uint16_t)i, NULL);
        sim_eventq_schedule(&q, &e[i], 7);
    }
    for (int i = 0; i < 100; i++)
        assert_int_equal(sim_eventq_pop(&q)->kind, i);
    sim_eventq_destroy(&q);
}

static void test_eventq_reschedule_goes_after_equals(void **state)
{
    (void)state;
    SimEventQ q;
    sim_eventq_init(&q);
    SimEvent a, b, c;
    sim_event_init(&a, 1, NULL);
    sim_event_init(&b, 2, NULL);
    sim_event_init(&c, 3, NULL);
    sim_eventq_schedule(&q, &a, 5);
    sim_eventq_schedule(&q, &b, 5);
    sim_eventq_schedule(&q, &c, 1);
    sim_eventq_schedule(&q, &a, 5); /* moves behind b */
    sim_eventq_schedule(&q, &c, 9); /* moves later */
    assert_true(sim_eventq_check(&q));
    assert_int_equal(sim_eventq_pop(&q)->kind, 2);
    assert_int_equal(sim_eventq_pop(&q)->kind, 1);
    assert_int_equal(sim_eventq_pop(&q)->kind, 3);
    sim_eventq_destroy(&q);
}

static void test_eventq_cancel_removes(void **state)
{
    (void)state;
    SimEventQ q;
    sim_eventq_init(&q);
    SimEvent e[10];
    for (int i = 0; i < 10; i++) {
        sim_event_init(&e[i], (uint16_t)i, NULL);
        sim_eventq_schedule(&q, &e[i], (SimTime)(10 - i));
    }
    sim_eventq_cancel(&q, &e[3]);
    sim_eventq_cancel(&q, &e[3]); /* twice is harmless */
    sim_eventq_cancel(&q, &e[9]); /* the minimum */
    assert_true(sim_eventq_check(&q));
    assert_int_equal(q.len, 8);
    int seen = 0;
    SimEvent *p;
    SimTime last = 0;
    while ((p = sim_eventq_pop(&q))) {
        assert_int_not_equal(p->kind, 3);
        assert_int_not_equal(p->kind, 9);
        assert_true(p->when >= last);
        last = p->when;
        seen++;
    }
    assert_int_equal(seen, 8);
    sim_eventq_destroy(&q);
}

/* Two buckets at one time: a bucket at t1 loses its newest mark when a
 * time t2 of the same table slot takes the slot, so the next event at t1
 * opens a second bucket there.  An event that is the tail of the older
 * one, scheduled at t1 again, must still go after that newer event. */
static void test_eventq_reschedule_behind_newer_bucket(void **state)
{
    (void)state;
    const SimTime t1 = 100;
    SimTime t2 = t1 + 1;
    while (sim_eventq_slot(t2) != sim_eventq_slot(t1))
        t2++;
    SimEventQ q;
    sim_eventq_init(&q);
    SimEvent a, b, c;
    sim_event_init(&a, 1, NULL);
    sim_event_init(&b, 2, NULL);
    sim_event_init(&c, 3, NULL);
    sim_eventq_schedule(&q, &a, t1); /* bucket A at t1, open, marked */
    sim_eventq_schedule(&q, &b, t2); /* takes the slot: A unmarked */
    sim_eventq_schedule(&q, &c, t1); /* a newer bucket at t1 */
    sim_eventq_schedule(&q, &a, t1); /* a, A's tail, goes after c */
    assert_true(sim_eventq_check(&q));
    assert_int_equal(sim_eventq_pop(&q)->kind, 3);
    assert_int_equal(sim_eventq_pop(&q)->kind, 1);
    assert_int_equal(sim_eventq_pop(&q)->kind, 2);
    assert_null(sim_eventq_pop(&q));
    sim_eventq_destroy(&q);
}

/* An event alone in its bucket, moved to a time no bucket may take it,
 * carries its bucket along (eventq.c's bucket_move): the bucket becomes
 * the open one at the new time, and the bucket marked newest in that
 * time's table slot loses its mark, as a new bucket would have made them.
 * Later events at the new time go after it, at the old time into a new
 * bucket; at a time sharing the slot, after the unmarked bucket there. */
static void test_eventq_lone_event_moves_its_bucket(void **state)
{
    (void)state;
    const SimTime t2 = 20;
    SimTime t3 = t2 + 1;
    while (sim_eventq_slot(t3) != sim_eventq_slot(t2))
        t3++;
    SimEventQ q;
    sim_eventq_init(&q);
    SimEvent a, b, c, d, e;
    sim_event_init(&a, 1, NULL);
    sim_event_init(&b, 2, NULL);
    sim_event_init(&c, 3, NULL);
    sim_event_init(&d, 4, NULL);
    sim_event_init(&e, 5, NULL);
    sim_eventq_schedule(&q, &a, 10); /* bucket A */
    sim_eventq_schedule(&q, &b, t2); /* bucket B: open, marked */
    sim_eventq_schedule(&q, &a, t3); /* to t3; B unmarked */
    SimEventBucket *A = a.bucket;
    assert_true(q.open == A && A->newest && !b.bucket->newest);
    assert_true(sim_eventq_check(&q));
    sim_eventq_schedule(&q, &c, t3); /* after a, in A */
    assert_ptr_equal(c.bucket, A);
    sim_eventq_schedule(&q, &d, 10); /* a new bucket at 10 */
    sim_eventq_schedule(&q, &e, t2); /* a new bucket after B */
    assert_true(e.bucket != b.bucket);
    assert_true(sim_eventq_check(&q));
    const int order[] = {4, 2, 5, 1, 3};
    for (size_t i = 0; i < G_N_ELEMENTS(order); i++)
        assert_int_equal(sim_eventq_pop(&q)->kind, order[i]);
    assert_null(sim_eventq_pop(&q));
    sim_eventq_destroy(&q);
}

/* A reserved event goes after the events at its time scheduled before the
 * reservation and before those scheduled since, in or out of their bucket;
 * a schedule or a cancel drops the reservation. */
static void test_eventq_fill_takes_reserved_place(void **state)
{
    (void)state;
    SimEventQ q;
    sim_eventq_init(&q);
    SimEvent x, a, b, c, d, f;
    sim_event_init(&x, 1, NULL);
    sim_event_init(&a, 2, NULL);
    sim_event_init(&b, 3, NULL);
    sim_event_init(&c, 4, NULL);
    sim_event_init(&d, 5, NULL);
    sim_event_init(&f, 6, NULL);
    sim_eventq_schedule(&q, &x, 5); /* before the reservation */
    sim_eventq_reserve(&q, &a);
    sim_eventq_reserve(&q, &d);
    assert_true(sim_event_reserved(&a) && !sim_event_pending(&a));
    sim_eventq_schedule(&q, &b, 5); /* since: in x's bucket, after a's place */
    sim_eventq_schedule(&q, &c, 9);
    sim_eventq_fill(&q, &d, 5); /* between a's place and b */
    sim_eventq_fill(&q, &a, 5); /* between x and d */
    assert_ptr_equal(a.bucket, x.bucket);
    assert_false(sim_event_reserved(&a));
    sim_eventq_reserve(&q, &f);
    sim_eventq_schedule(&q, &f, 7); /* superseded: an ordinary schedule */
    assert_false(sim_event_reserved(&f));
    sim_eventq_cancel(&q, &f);
    sim_eventq_reserve(&q, &f);
    sim_eventq_cancel(&q, &f); /* dropped: not pending */
    assert_false(sim_event_reserved(&f) || sim_event_pending(&f));
    assert_int_equal(q.reserved, 0);
    assert_true(sim_eventq_check(&q));
    const int order[] = {1, 2, 5, 3, 4};
    for (size_t i = 0; i < G_N_ELEMENTS(order); i++)
        assert_int_equal(sim_eventq_pop(&q)->kind, order[i]);
    assert_null(sim_eventq_pop(&q));
    sim_eventq_destroy(&q);
}

/* Random schedule/cancel/pop sequences against a trivially correct model:
 * an array kept sorted by (when, seq). */
typedef struct {
    SimTime when;
    uint64_t seq;
    int id;
} Ref;

static int ref_cmp(const void *a, const void *b)
{
    const Ref *x = a, *y = b;
    if (x->when != y->when)
        return x->when < y->when ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Times drawn from [0, span): a small span makes ties common; a span over
 * the newest-bucket table's slots makes times share slots (eventq.h). */
static void run_model(guint32 seed, int span, bool reserve)
{
    enum { N = 300, STEPS = 20000 };
    GRand *rng = g_rand_new_with_seed(seed);
    SimEventQ q;
    sim_eventq_init(&q);
    SimEvent *ev = g_new(SimEvent, N);
    Ref *ref = g_new(Ref, N);
    bool *in = g_new0(bool, N);
    uint64_t seq = 0;
    for (int i = 0; i < N; i++)
        sim_event_init(&ev[i], (uint16_t)i, NULL);
    for (int step = 0; step < STEPS; step++) {
        int op = g_rand_int_range(rng, 0, reserve ? 12 : 10);
        int id = g_rand_int_range(rng, 0, N);
        if (op >= 10 && !in[id] && !sim_event_reserved(&ev[id])) {
            /* its place now (the model's sequence), its time later */
            sim_eventq_reserve(&q, &ev[id]);
            ref[id] = (Ref){0, seq++, id};
        } else if (op >= 10 && sim_event_reserved(&ev[id])) {
            SimTime t = (SimTime)g_rand_int_range(rng, 0, span);
            sim_eventq_fill(&q, &ev[id], t);
            ref[id].when = t;
            in[id] = true;
        } else if (op >= 10) {
            continue;
        } else if (op < 6) {
            SimTime t = (SimTime)g_rand_int_range(rng, 0, span);
            sim_eventq_schedule(&q, &ev[id], t);
            ref[id] = (Ref){t, seq++, id};
            in[id] = true;
        } else if (op < 8) {
            sim_eventq_cancel(&q, &ev[id]);
            in[id] = false;
        } else {
            /* the model's minimum */
            Ref best = {0, 0, -1};
            for (int i = 0; i < N; i++)
                if (in[i] && (best.id < 0 || ref_cmp(&ref[i], &best) < 0))
                    best = ref[i];
            SimEvent *p = sim_eventq_pop(&q);
            if (best.id < 0) {
                assert_null(p);
            } else {
                assert_non_null(p);
                assert_int_equal(p->kind, best.id);
                in[best.id] = false;
            }
        }
        if (step % 97 == 0)
            assert_true(sim_eventq_check(&q));
    }
    /* drain: must come out in model order */
    Ref *rest = g_new(Ref, N);
    int n = 0;
    for (int i = 0; i < N; i++)
        if (in[i])
            rest[n++] = ref[i];
    qsort(rest, n, sizeof(Ref), ref_cmp);
    for (int i = 0; i < N; i++) /* reservations left: dropped */
        if (sim_event_reserved(&ev[i]))
            sim_eventq_cancel(&q, &ev[i]);
    assert_int_equal(q.reserved, 0);
    for (int i = 0; i < n; i++)
        assert_int_equal(sim_eventq_pop(&q)->kind, rest[i].id);
    assert_null(sim_eventq_pop(&q));
    g_free(rest);
    g_free(in);
    g_free(ref);
    g_free(ev);
    sim_eventq_destroy(&q);
    g_rand_free(rng);
}

static void test_eventq_matches_sorted_model(void **state)
{
    (void)state;
    const guint32 fixed[] = {1, 2, 3, 42, 20261122};
    for (size_t i = 0; i < G_N_ELEMENTS(fixed); i++) {
        for (int r = 0; r < 2; r++) { /* without and with reservations */
            run_model(fixed[i], 50, r);
            run_model(fixed[i], 4 * SIM_EVENTQ_NEWEST_SLOTS, r);
        }
    }
    /* plus one fresh seed, printed so a failure can be replayed */
    guint32 fresh = g_random_int();
    printf("# test_eventq: fresh seed %u\n", fresh);
    run_model(fresh, 50, true);
    run_model(fresh, 4 * SIM_EVENTQ_NEWEST_SLOTS, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eventq_pop_orders_by_time),
        cmocka_unit_test(test_eventq_equal_times_are_fifo),
        cmocka_unit_test(test_eventq_reschedule_goes_after_equals),
        cmocka_unit_test(test_eventq_cancel_removes),
        cmocka_unit_test(test_eventq_reschedule_behind_newer_bucket),
        cmocka_unit_test(test_eventq_lone_event_moves_its_bucket),
        cmocka_unit_test(test_eventq_fill_takes_reserved_place),
        cmocka_unit_test(test_eventq_matches_sorted_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
