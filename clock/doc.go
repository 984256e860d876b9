// Package clock is the time source of rolloutkit.
//
// Every computation that depends on "now" takes a [PassiveClock], which is
// k8s.io/utils/clock.PassiveClock: the smallest interface a reader of time
// needs (Now and Since). Nothing in rolloutkit keeps a package-level clock;
// a nil PassiveClock in an options struct means [Real], and [NowOf] is how
// the packages read one.
//
// A plan made as of one time (a dry run, an offline report, the steps of
// one call) reads [At], a clock that always reads that time.
//
// Tests and examples use the fake in the sibling package
// github.com/rolloutkit/rolloutkit/clock/fake, which must be given a start
// time and is moved with Step or SetTime.
package clock
