"""The results site and the badges, built from run reports (`memoir-conform report`).

- `reports`: run reports read back and named (a label and a file name per implementation);
- `cells`: what each requirement shows for each implementation (pass, fail, SHOULD only, ...);
- `badges`: the shields-style endpoint JSON and the SVG badge of an implementation;
- `build`: the static site (Jinja2 templates and assets under this package);
- `command`: the `report` subcommand.
"""
