"""drivable in CI: audit (and optionally evaluate) one server, write SARIF, Markdown and a verdict.

`drivable ci` runs on any CI; `python -m drivable.ci.action` is the repository's GitHub Action
(action.yml) reading its inputs. `verdict` decides the gate, `summary` writes the Markdown a person
reads (the job summary, one pull-request comment), `github` speaks to the runner and the REST API.
"""
