import sys

from incspec.cli import main

sys.exit(main())
