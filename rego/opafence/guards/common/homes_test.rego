package opafence.guards.homes_test

# Two homes: Hermes' terminal.home_mode can give the tools $HERMES_HOME/home as HOME
# (host.home, where ~ points) while the user's own home stays reachable by its absolute path
# (host.other_homes). Both are protected; nested homes resolve to the innermost.

import data.opafence.guards.common
import data.opafence.guards.destruction
import data.opafence.guards.secrets
import data.opafence.test.fixtures as f

profile_home := "/home/u/.hermes/home"

# The tools' HOME is the profile home; the user's own home is another home.
profile(inp) := object.union(inp, {"host": object.union(f.host, {"home": profile_home, "other_homes": ["/home/u"]})})

# Only the user's home (the default): other_homes absent or empty.
plain(inp) := object.union(inp, {"host": object.union(f.host, {"other_homes": []})})

rm_rf(path) := f.terminal([f.sh(["rm", "-rf", path])])

read(path) := f.call("read_file", {"path": path}, {"paths": [f.pf(path, "path", "arg", "")]})

destructive(inp) if {
	some r in destruction.deny with input as inp
	r.code == "DESTRUCTIVE_DELETE"
}

test_homes_are_both_homes if {
	common.homes == {"/home/u", profile_home} with input as profile(read("/x"))
	common.homes == {"/home/u"} with input as plain(read("/x"))
	common.homes == {"/home/u"} with input as read("/x") # no other_homes key at all
}

test_home_relative_takes_the_innermost_home if {
	common.home_relative("/home/u/.hermes/home/.ssh/id_rsa") == ".ssh/id_rsa" with input as profile(read("/x"))
	common.home_relative("/home/u/.ssh/id_rsa") == ".ssh/id_rsa" with input as profile(read("/x"))
	not common.home_relative("/srv/.ssh/id_rsa") with input as profile(read("/x"))
}

test_fail_deleting_either_home_is_destructive if {
	every p in ["/home/u", profile_home, "/home/u/Documents", "/home/u/.hermes/home/Documents"] {
		destructive(profile(rm_rf(p)))
	}
}

test_success_a_plain_folder_in_either_home_is_not_critical if {
	every p in ["/home/u/src/app/build", "/home/u/.hermes/home/tmp/build"] {
		not destructive(profile(rm_rf(p)))
	}
}

test_success_only_the_user_home_without_profile if {
	not destructive(plain(rm_rf("/home/u/.hermes/home/Documents")))
}

test_fail_public_ssh_keys_in_either_home_are_not_secret_but_private_ones_are if {
	some r in secrets.ask with input as profile(read("/home/u/.ssh/id_ed25519"))
	r.code == "SECRET_READ"
	some s in secrets.ask with input as profile(read("/home/u/.hermes/home/.ssh/id_ed25519"))
	s.code == "SECRET_READ"
	count(secrets.ask) == 0 with input as profile(read("/home/u/.hermes/home/.ssh/id_ed25519.pub"))
	count(secrets.ask) == 0 with input as profile(read("/home/u/.ssh/known_hosts"))
}
