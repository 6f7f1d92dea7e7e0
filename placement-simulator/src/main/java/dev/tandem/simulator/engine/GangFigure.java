package dev.tandem.simulator.engine;

/**
 * How one run kept its gangs on one rail set (docs/placement.md, "Gangs and rails"). A member's
 * rail set is the set of rails of the HCAs it got; two members are a cross-rail pair when their
 * sets differ (traffic between them leaves the leaf switch, on a rail-optimized fabric).
 *
 * @param gangs gangs with a member in the trace, up to where the run stopped
 * @param membersPlaced gang members that started
 * @param gangsWhole gangs whose every member started
 * @param gangsWithPairs gangs with at least two members started
 * @param memberPairs pairs of started members of one gang
 * @param crossRailPairs of those, pairs whose rail sets differ
 * @param gangsSplit gangs with at least one cross-rail pair
 */
public record GangFigure(
    int gangs,
    int membersPlaced,
    int gangsWhole,
    int gangsWithPairs,
    long memberPairs,
    long crossRailPairs,
    int gangsSplit) {

  /** Share of the gangs with two members started that have a cross-rail pair, 0..1. */
  public double splitShare() {
    return gangsWithPairs == 0 ? 0 : (double) gangsSplit / gangsWithPairs;
  }
}
