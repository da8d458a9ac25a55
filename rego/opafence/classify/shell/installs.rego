# Shell classification, installs (shell.rego's actions take them): the packages a command
# installs, the project's own dependencies from its manifest, and installs from elsewhere.
package opafence.classify.shell

# --- packages ----------------------------------------------------------------------------------

packages(cmd, s) := set() if {
	s.packages == true
	manifest_install(cmd, s)
} else := {p | some p in rest_operands(cmd)} if s.packages == true

else := set()

# The project's own dependencies from its manifest: `pip install -r requirements-dev.txt`,
# `pip install -e '.[dev]'`, `pip install .`. A requirements file named by a relative path, or the
# project directory itself; no index, link or constraint option, nothing from elsewhere.
manifest_flags := {"-r", "--requirement", "-e", "--editable"}

manifest_install(cmd, s) if {
	s.packages == true
	count(rest_operands(cmd)) > 0
	every f in install_source_flags {
		manifest_flag_ok(cmd, f)
	}
	every p in rest_operands(cmd) {
		local_manifest(p)
	}
}

manifest_flag_ok(_, f) if f in manifest_flags

manifest_flag_ok(cmd, f) if not flag_given(cmd, f)

local_project(p) if regex.match(`^\.(\[[A-Za-z0-9,._-]+\])?$`, p)

local_manifest(p) if local_project(p)

local_manifest(p) if {
	regex.match(`^[A-Za-z0-9_][A-Za-z0-9_./-]*\.(txt|in)$`, p)
	contains(lower(p), "requirements")
	not contains(p, "..")
}

install_source_flags := {
	"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--trusted-host", "--registry",
	"-e", "--editable", "-r", "--requirement", "-c", "--constraint", "--pre", "--source",
}

# An install from somewhere other than the default index, or of something other than a name.
custom_install(cmd, s) if {
	s.packages == true
	some f in install_source_flags
	flag_given(cmd, f)
}

custom_install(cmd, s) if {
	s.packages == true
	some p in rest_operands(cmd)
	not plain_package(p)
}

plain_package(p) if regex.match(`^[A-Za-z0-9@][A-Za-z0-9._@-]*(\[[A-Za-z0-9,._-]+\])?([<>=!~^]=?[A-Za-z0-9.*+-]+)?$`, p)
