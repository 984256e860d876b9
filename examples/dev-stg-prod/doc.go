// Command dev-stg-prod replays the story told in docs/story.md end to
// end, from the story's own manifests:
//
//  1. it schedules the cluster-proxy Placement over the three clusters and
//     prints the decision-group table the story shows;
//  2. it hashes the ManagedProxyConfiguration before and after the image tag
//     change, and shows that every add-on then needs the new config;
//  3. it simulates the ProgressivePerGroup rollout of the story's
//     ClusterManagementAddOn (minSuccessTime 5m, progressDeadline 15m,
//     maxFailures 0) on a fake clock and prints the timeline: dev, then stg
//     after dev's soak, then prod.
//
// Flags add a failing cluster (-fail, -recover-after), a bigger fleet
// (-clusters, at most 10,000 per environment; -detail auto|full|summary,
// where auto summarises above 30 clusters and the SVG then draws one row per
// group), gates (-approve, -window) and an SVG chart (-svg). The exit code is
// 0 when the rollout completes, 1 when it halts or is stuck, and 2 for bad
// flags or input (an unknown cluster or group, a bad window).
// The rules it follows are in docs/semantics.md.
package main
