# Grant coverage, words (grants.rego's covers takes them): a note, a skill, a job or typed text the
# owner dictated, and the commits a commit grant named.
package opafence.lib.grants

# --- words: a note, a skill, a job the owner dictated ----------------------------------------------

worded_caps := {"remember", "skill", "schedule", "browse"}

# Words an agent adds when it writes down what the owner said ("User prefers tabs").
filler_words := {
	"the", "a", "an", "user", "users", "s", "is", "are", "was", "to", "of", "in", "on", "at", "and",
	"for", "with", "that", "it", "i", "m", "my", "me", "their", "they", "has", "have", "be",
}

words_ok(g, _) if {
	not g.capability in worded_caps
	g.capability != "commit"
}

# A commit grant covers the commits the owner named ("revert 3f2a9c1", "cherry-pick a1b2c3d"): a
# commit id the agent looked up elsewhere is a target the owner did not give (it asks).
words_ok(g, ctx) if {
	g.capability == "commit"
	said := {lower(w) | some w in g.words}
	every c in object.get(ctx, "commands", []) {
		every a in c.argv {
			commit_named(a, said)
		}
	}
}

commit_named(a, _) if not commit_id(a)

commit_named(a, said) if lower(a) in said

commit_id(a) if {
	regex.match(`^[0-9a-fA-F]{7,40}$`, a)
	regex.match(`[0-9]`, a)
}

# A browse grant bounds only what is typed; a click or a key press has no words.
words_ok(g, ctx) if {
	g.capability == "browse"
	ctx.tool != "browser_type"
}

# METADATA
# title: words_ok
# description: |
#   A remember, skill, schedule or browse grant covers a memory note, a new skill's name, a job's
#   prompt (or the job it pauses or resumes) or the text typed into a page only when every word of
#   it is a word of the owner's quote
#   (plural -s aside, a few filler words allowed): the note dictated, not another one.
words_ok(g, ctx) if {
	g.capability in worded_caps
	count(g.words) > 0
	text := worded_text(ctx)
	said := {stem(w) | some w in g.words}
	every w in regex.find_n(`[a-z0-9]+`, lower(text), -1) {
		word_said(w, said)
	}
}

word_said(w, _) if w in filler_words

word_said(w, said) if stem(w) in said

stem(w) := trim_suffix(w, "s") if count(w) > 3

else := w

worded_text(ctx) := t if {
	ctx.tool == "memory"
	t := concat(" ", [object.get(ctx.args, "content", ""), object.get(ctx.args, "old_text", "")])
	trim_space(t) != ""
}

worded_text(ctx) := ctx.args.name if {
	ctx.tool == "skill_manage"
	ctx.args.action == "create"
	is_string(ctx.args.name)
}

worded_text(ctx) := ctx.args.prompt if {
	ctx.tool == "cronjob"
	ctx.args.action in {"create", "update"}
	is_string(ctx.args.prompt)
	trim_space(ctx.args.prompt) != ""
}

worded_text(ctx) := ctx.args.text if {
	ctx.tool == "browser_type"
	is_string(ctx.args.text)
}

worded_text(ctx) := ctx.args.job_id if {
	ctx.tool == "cronjob"
	ctx.args.action in {"pause", "resume"}
	is_string(ctx.args.job_id)
}
