/**
 * kube-scheduler's extender verbs, one class each: {@link FilterVerb}, {@link PrioritizeVerb},
 * {@link BindVerb} and {@link PreemptVerb} map a call's decoded arguments to its result and never
 * see HTTP. Filter and prioritize walk the candidate nodes with the one {@link NodeEvaluator},
 * within an {@link AllocationBudget}; preempt searches each proposed node's victims with {@link
 * VictimSearch}, the same allocator judging every set. The HTTP adapter's {@code SchedulerRoutes}
 * mounts them (filter and prioritize through its {@code ReadingRoutes}).
 */
package dev.tandem.extender.verbs;
