package sandbox

// The helper starts before the initialisers of the packages that sort
// after this one (and do not import it) run: a sandboxed command does not
// pay for the whole binary's init (issue 17). Those that run earlier still
// cost; keep package init light everywhere.
func init() { MaybeRunHelper() }
