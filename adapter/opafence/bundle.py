"""`python -m opafence.bundle`: the name the bundle builder was first run by (docs, Makefiles of
organizations), kept working. The builder is opafence.opa.own_bundle."""

import runpy

if __name__ == "__main__":
    runpy.run_module("opafence.opa.own_bundle", run_name="__main__", alter_sys=True)
