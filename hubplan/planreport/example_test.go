package planreport_test

import (
	"fmt"
	"os"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
)

// ExamplePlan plans the seed's rollout at 12:10: dev is done, stg is in
// flight, prod waits for stg.
func ExamplePlan() {
	h := seedHub(true, midRollout()...)
	for _, name := range h.AddonNames() {
		rep, err := planreport.New(h, name, at(12, 10), nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := rep.WriteText(os.Stdout); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output:
	// add-on "cluster-proxy" at 2026-11-30T12:10:00Z
	//
	// placement "open-cluster-management/cluster-proxy-placement", ProgressivePerGroup, groups from 3 PlacementDecisions
	//   INDEX  GROUP  PHASE     CLUSTERS        REASON
	//   0      dev    Complete  "dev-cluster"   complete: 1 succeeded
	//   1      stg    Active    "stg-cluster"   rolling out: 1 progressing; "stg-cluster" progressing, deadline 12:21:00 (11m0s left)
	//   2      prod   Waiting   "prod-cluster"  waiting for group "stg": "stg-cluster" progressing, deadline 12:21:00 (11m0s left)
	//   start now: (none)
	//   in flight: "stg-cluster" (progressing, deadline 12:21:00)
	//   progression: selected clusters 3. configured addons 2/3 progressing..., 0 failed 0 timeout.
	//
	// clusters to start now: (none)
	// clusters in flight (already updating): "stg-cluster" (progressing, deadline 12:21:00)
	// timed out: (none)
	// removed: (none)
	// failure budget breached: false
	// look again in: 11m0s
}

// ExamplePlan_approval plans the seed's rollout at 12:20, stg done, under
// an AddOnRollout that requires an approval of prod: prod is held, and the
// report names the revision an approval must name.
func ExamplePlan_approval() {
	h := controlled(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}, v1alpha1.AddOnRolloutStatus{})
	rep, err := planreport.New(h, addonName, at(12, 20), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range rep.Placements[0].Groups {
		line := g.Name + ": " + g.Status.Phase
		if g.Status.WaitsFor != "" {
			line += ", waits for " + g.Status.WaitsFor
		}
		fmt.Println(line)
	}
	for _, pa := range rep.Rollout.PendingApprovals {
		fmt.Printf("pending: group %s of %s/%s at revision %s\n", pa.Group, pa.Placement.Namespace, pa.Placement.Name, pa.Revision)
	}
	fmt.Println("start now:", rep.Start)
	// Output:
	// dev: Complete
	// stg: Complete
	// prod: Blocked, waits for Approval
	// pending: group prod of open-cluster-management/cluster-proxy-placement at revision ee3a0a2630de
	// start now: []
}

// ExampleReport_WriteStatus shows the seed's rollout at 12:20, stg done,
// as an operator's CLI shows it: prod waits for an approval of the
// revision whose config is listed, and the status says the command that
// gives it.
func ExampleReport_WriteStatus() {
	h := controlled(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}, v1alpha1.AddOnRolloutStatus{})
	rep, err := planreport.New(h, addonName, at(12, 20), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := rep.WriteStatus(os.Stdout, planreport.StatusOptions{Command: "kubectl rolloutkit"}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// add-on "cluster-proxy" at 2026-11-30 12:20:00 UTC
	// AddOnRollout "cluster-proxy": generation 2, status of generation 0: the controller has not written it yet (is it running, with -addons?)
	// placement open-cluster-management/cluster-proxy-placement: revision ee3a0a2630de, ProgressivePerGroup
	//   config managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy: spec hash 4f456c20e8084cae3edcdd8ce4895f074750e1833d945d98baa7226da420af52, image quay.io/open-cluster-management/cluster-proxy:v2
	//
	// PLACEMENT                                        GROUP  INDEX  PHASE     WAITS FOR  OK/RUN/FAIL/TIMEOUT/TODO  UNTIL  MESSAGE
	// open-cluster-management/cluster-proxy-placement  dev    0      Complete  -          1/0/0/0/0                 -      complete: 1 succeeded
	// open-cluster-management/cluster-proxy-placement  stg    1      Complete  -          1/0/0/0/0                 -      complete: 1 succeeded
	// open-cluster-management/cluster-proxy-placement  prod   2      Blocked   Approval   0/0/0/0/1                 -      held: waiting for approval of group "prod"
	//
	// pending approvals:
	//   open-cluster-management/cluster-proxy-placement group "prod", revision ee3a0a2630de: kubectl rolloutkit approve cluster-proxy prod --revision ee3a0a2630de
	//
	// conditions:
	//   TYPE         STATUS  REASON              MESSAGE
	//   Valid        True    Valid               the spec is valid
	//   Paused       False   NotPaused           spec.paused is false
	//   Progressing  True    WaitingForApproval  placement open-cluster-management/cluster-proxy-placement group "prod" waits for an approval of revision ee3a0a2630de
}

// ExampleReport_WriteStatus_holds shows the seed's rollout at 12:20 while
// prod waits for an approval and the work gate holds prod's work: the
// add-on's manager moved on to the new config at 12:01:05, and the gate
// holds the work from being created (it was deleted) until prod's turn.
func ExampleReport_WriteStatus_holds() {
	h := withHold(controlled(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}, v1alpha1.AddOnRolloutStatus{}),
		"ConfigMovedOn", "config managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy has moved on to spec 4f456c20e808, "+
			"which the rollout has not handed to prod-cluster yet")
	rep, err := planreport.New(h, addonName, at(12, 20), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := rep.WriteStatus(os.Stdout, planreport.StatusOptions{Command: "kubectl rolloutkit"}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// add-on "cluster-proxy" at 2026-11-30 12:20:00 UTC
	// AddOnRollout "cluster-proxy": generation 2, status of generation 0: the controller has not written it yet (is it running, with -addons?)
	// placement open-cluster-management/cluster-proxy-placement: revision ee3a0a2630de, ProgressivePerGroup
	//   config managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy: spec hash 4f456c20e8084cae3edcdd8ce4895f074750e1833d945d98baa7226da420af52, image quay.io/open-cluster-management/cluster-proxy:v2
	//
	// PLACEMENT                                        GROUP  INDEX  PHASE     WAITS FOR  OK/RUN/FAIL/TIMEOUT/TODO                                           UNTIL  MESSAGE
	// open-cluster-management/cluster-proxy-placement  dev    0      Complete  -          1/0/0/0/0                                                          -      complete: 1 succeeded
	// open-cluster-management/cluster-proxy-placement  stg    1      Complete  -          1/0/0/0/0                                                          -      complete: 1 succeeded
	// open-cluster-management/cluster-proxy-placement  prod   2      Blocked   Approval   0/0/0/0/1 (1 held since 12:01:05, 18m ago; 1 with a missing work)  -      held: waiting for approval of group "prod"
	// works the work gate holds, the longest held first:
	//   open-cluster-management/cluster-proxy-placement group "prod":
	//     prod-cluster: work addon-cluster-proxy-deploy-0 missing, held since 12:01:05 (18m ago): ConfigMovedOn: config managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy has moved on to spec 4f456c20e808, which the rollout has not handed to prod-cluster yet
	//
	// pending approvals:
	//   open-cluster-management/cluster-proxy-placement group "prod", revision ee3a0a2630de: kubectl rolloutkit approve cluster-proxy prod --revision ee3a0a2630de
	//
	// conditions:
	//   TYPE         STATUS  REASON              MESSAGE
	//   Valid        True    Valid               the spec is valid
	//   Paused       False   NotPaused           spec.paused is false
	//   Progressing  True    WaitingForApproval  placement open-cluster-management/cluster-proxy-placement group "prod" waits for an approval of revision ee3a0a2630de
}
