from lychd_core.cli import main

raise SystemExit(main())
