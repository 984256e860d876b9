package main

import (
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// checkDurations finds the minSuccessTime values of a
// ClusterManagementAddOn's install strategy that are not durations, and
// names each by its field path.
// Decoding into the API type fails on the first one with only
// time.ParseDuration's error, which names no field.
func checkDurations(js []byte) field.ErrorList {
	var obj struct {
		Spec struct {
			InstallStrategy struct {
				Placements []struct {
					RolloutStrategy map[string]json.RawMessage `json:"rolloutStrategy"`
				} `json:"placements"`
			} `json:"installStrategy"`
		} `json:"spec"`
	}
	if json.Unmarshal(js, &obj) != nil {
		return nil // the decoder into the API type says what is wrong
	}
	var errs field.ErrorList
	placements := field.NewPath("spec", "installStrategy", "placements")
	for i, p := range obj.Spec.InstallStrategy.Placements {
		// The rollout types whose configs hold a minSuccessTime.
		for _, typ := range []string{"all", "progressive", "progressivePerGroup"} {
			var cfg struct {
				MinSuccessTime json.RawMessage `json:"minSuccessTime"`
			}
			raw, ok := p.RolloutStrategy[typ]
			if !ok || json.Unmarshal(raw, &cfg) != nil || cfg.MinSuccessTime == nil {
				continue
			}
			path := placements.Index(i).Child("rolloutStrategy", typ, "minSuccessTime")
			var s string
			if err := json.Unmarshal(cfg.MinSuccessTime, &s); err != nil {
				errs = append(errs, field.Invalid(path, string(cfg.MinSuccessTime), "want a duration string such as 5m or 1h30m"))
				continue
			}
			if _, err := time.ParseDuration(s); err != nil {
				errs = append(errs, field.Invalid(path, s, fmt.Sprintf("want a duration such as 5m or 1h30m (%v)", err)))
			}
		}
	}
	return errs
}
