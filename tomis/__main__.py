"""``python -m tomis`` runs the same command line as the ``tomis`` script."""

from tomis.cli import main

if __name__ == "__main__":
    main()
