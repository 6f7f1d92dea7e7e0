package dev.tandem.extender.verbs;

import java.util.Map;

/**
 * The preempt verb's answer: the nodes kept as candidates with their victims ({@code
 * NodeNameToMetaVictims}), and what became of every proposed node.
 *
 * @param candidates kept nodes, in the order of the request
 * @param outcomes every proposed node's outcome, in the order of the request
 */
public record PreemptionResult(
    Map<String, ChosenVictims> candidates, Map<String, PreemptOutcome> outcomes) {}
