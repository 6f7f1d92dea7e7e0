/**
 * kube-scheduler's extender verbs, one class each: {@link FilterVerb}, {@link PrioritizeVerb} and
 * {@link BindVerb} map a call's decoded arguments to its result and never see HTTP. Filter and
 * prioritize walk the candidate nodes with the one {@link NodeEvaluator}, within an {@link
 * AllocationBudget}. A preempt verb would be a {@code PreemptVerb} here, mounted beside the others
 * by the HTTP adapter's {@code SchedulerRoutes}.
 */
package dev.tandem.extender.verbs;
