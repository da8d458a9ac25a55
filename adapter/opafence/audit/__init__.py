"""The audit trail and what reads it.

trail.py: the hash-chained, signed log and its head; keys.py: its signing and digest keys;
verify.py: checking every entry, link and signature; forward.py: sending the signed head to a
collector; redaction.py: how much of a call's targets the trail keeps; report.py: what the
trail says about a period (`opafence audit`, `/fence budget`); subcommand.py: `opafence audit …`."""
