// Command rolloutctl is an operator's controls over the rollouts of the
// rolloutkit controller on a hub: it shows where an add-on's rollout
// stands and what each group waits for, pauses and resumes it, and
// approves a group that waits for an approval. It is also a kubectl
// plugin: installed on $PATH as kubectl-rolloutkit, it runs as
// "kubectl rolloutkit".
//
//	go -C examples/controller run ./cmd/rolloutctl [--kubeconfig FILE] [--context NAME] SUBCOMMAND ARGS [flags]
//	go -C examples/controller build -o bin/kubectl-rolloutkit ./cmd/rolloutctl   # then, with bin on $PATH:
//	kubectl rolloutkit SUBCOMMAND ARGS [flags]
//
//	status ADDON [-o text|json|yaml]               the rollout, one line per group, then approvals pending and conditions
//	pause ADDON                                    no cluster starts; clusters in flight finish
//	resume ADDON                                   clusters start again
//	approve ADDON GROUP [--placement NS/NAME] [--revision R] [--wait D]
//	                                               let GROUP start at the revision it waits at (R: only if it is that one)
//	version [--client] [-o text|json|yaml]         this client's version, and each controller replica's (also: -version)
//	completion bash|zsh|fish|powershell            the shell's completion script
//
// The command line is cobra's, as kubectl's: a flag takes two dashes, or
// one in its one-letter form (-o, -h), and may come before or after the
// subcommand and its arguments; every subcommand takes -h. The hub is the one
// kubectl would use, with kubectl's own flags (k8s.io/cli-runtime's
// ConfigFlags): --kubeconfig, --context, --cluster, --user, --server,
// --token, --as and the rest; without them $KUBECONFIG, ~/.kube/config,
// or the pod's service account in a cluster. rolloutkit's objects and
// ClusterManagementAddOns are cluster-scoped: --namespace names only the
// controller's namespace (default rolloutkit-system), where version and
// status read the controller's version.
//
// # version
//
// version prints this client's build (module version, VCS revision, Go
// version) and, unless --client, the controller's: each replica, leader
// or not, reports its build every minute on the Lease
// rolloutkit-controller-versions in its namespace (one annotation per
// replica, versionlease), so that a rolling upgrade shows the old
// replicas and the new side by side, and a replica that stopped without
// saying so shows as stale. It exits 1 when no replica has reported in
// the last three minutes. Reading it takes get on that one Lease, which
// the viewer role grants; status ends with the same one line, so that a
// plan with nobody to carry it out says so.
//
// The program names itself as it is invoked: "rolloutctl", or
// "kubectl rolloutkit" as kubectl-rolloutkit, in its usage, its errors
// and the commands status suggests. Invoked as kubectl_complete-rolloutkit
// (a link to the same binary beside it), it is what kubectl runs to
// complete the words after "kubectl rolloutkit". Completion offers the
// hub's add-ons, the groups that wait for an approval, the add-on's
// placements, and the kubeconfig's contexts.
//
// # status
//
// status reads the hub as the controller does (dryrun.ReadHub) and plans
// the add-on with the controller's own call (hubplan.Planner.Plan,
// through the report of examples/plan and the controller's -dry-run), so
// that what it shows is the controller's answer at this moment, even
// between two of its reconciles: per placement its revision (and, for a
// rendering revision, which one it rolls out: of unchanged configs, or
// joined with a config change), per group
// its phase, what it waits for (Approval, Window, Paused, Verification,
// Invalid, or the planner's own: Group, Mandatory, Cluster, Breach,
// MaxConcurrency), its clusters by status (succeeded/progressing/failed/
// timed out/to apply, then how many the work gate holds, since when the
// oldest hold has waited and how many miss a work), until when (a date,
// time and zone, as every time it prints) and why; under the groups each
// cluster whose works the gate holds (its works, the missing ones marked,
// since when, the gate's reason and why), the longest held first; then
// the approvals pending, the verifications due
// (the controller runs them; rolloutctl does not), the problems of an
// invalid AddOnRollout, and its conditions. It also shows the
// AddOnRollout's generation beside the generation its status was written
// for, so that a controller lagging behind the spec shows, and when the
// controller last confirmed the status (status.lastConfirmedTime) and is
// due to again (status.recheckTime). A status more than a minute
// (planreport.StaleGrace) past its recheck time is stale: status says so,
// naming when the controller last confirmed it (or, without
// lastConfirmedTime, last wrote it), and shows the groups and conditions
// as the status last said them, then the clusters a running controller
// would start; nothing acts on the plan until one runs. When the configs
// on the hub make a revision other than the one the status was written
// for, status says at once that the controller has not acted on it (the
// revision, its configs, and the revision the status describes), and
// shows the groups as the status last said them too. Every time shows
// how long ago or in how long ("2026-12-02 10:42:00 UTC (12m ago)"). For
// each placement it lists the configs of its revision (resource, name,
// spec hash, and the add-on's image where the config gives one), and it
// lists the add-on's approvals: what each approves, who created it
// (spec.username, recorded at admission) and what its status says. It
// warns when the controller, with its default -lifecycle, does not take
// the add-on (hubclient.Takes). -o json prints the report of examples/plan -o json
// instead, -o yaml the same document in YAML. An add-on without an
// AddOnRollout is shown as the planner sees it, rolled out without
// operator controls.
//
// # pause and resume
//
// pause sets spec.paused of the AddOnRollout named after the add-on with
// a merge patch, and creates the AddOnRollout when there is none; resume
// clears it, and says there is nothing to resume when there is no
// AddOnRollout or it is not paused. Both refuse an add-on the hub does not
// have, naming the hub's add-ons and those close to the name given: an
// AddOnRollout of a misspelt name holds nothing.
//
// # approve
//
// approve creates, for each placement where GROUP waits for an approval
// (or only for --placement), a RolloutApproval of the revision it waits
// at, named ADDON-GROUP-REVISION (ADDON-NAMESPACE-PLACEMENT-GROUP-REVISION
// when the add-on has several placements), lowercased, and with a short
// hash of the exact names appended when they are not a valid object name
// as they are. With --revision R (the revision reviewed in status), it
// refuses when the group waits at another revision, naming that revision
// and its configs. Approving again is fine: an approval that already
// approves the group at that revision (hubplan.Approves, as the
// controller tells) is reported with what its status says, not created
// twice. approve never reports an approval as given when its status says
// otherwise: one whose Approved condition says it approves nothing
// (RevisionMismatch, NotRequired, UnknownGroup, AddOnNotFound) is refused
// with what it says. A new approval has not been judged yet, and approve
// says so; with --wait D it waits up to D for the controller's judgement
// and reports it (refused when it approves nothing, or none came in
// time). When nothing waits for an approval of GROUP, approve refuses and
// says what is pending instead. It refuses an add-on the hub does not
// have.
//
// # Exit codes
//
// 0 when done (status printed whatever the rollout's state, a stale one
// included; paused, resumed, approved, or nothing to resume; help and
// completion), 1 when pause, resume or approve refuses (an add-on the hub
// does not have included) or the hub fails a request (one the user's
// role does not allow included), 2 on bad usage: an unknown subcommand or
// flag (a long flag with one dash, -revision, included), missing or extra
// arguments, a kubeconfig or context that cannot be loaded, or status of
// an add-on the hub does not have. kubectl passes the plugin's exit code
// on.
//
// # Roles
//
// config/rbac ships the ClusterRoles to bind: rolloutkit-viewer, what
// status reads (and the controller's -dry-run), and rolloutkit-approver,
// the viewer's rules (by aggregation) and create on RolloutApprovals, for
// approve. pause and resume patch or create AddOnRollouts, which neither
// role allows.
package main
