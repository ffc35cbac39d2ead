"""The stages of the call pipeline, one module each (composed in `drivable.contract.pipeline`)."""
