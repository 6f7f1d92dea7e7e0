/**
 * The standby replica's rehearsal: while another replica holds the lease, this one plays
 * kube-scheduler's filter and prioritize against its own state through the verbs the routes use, so
 * that it answers at its warm speed from its first request as leader.
 */
package dev.tandem.extender.standby;
