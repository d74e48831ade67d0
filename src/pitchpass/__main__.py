from pitchpass.cli import main

main()
