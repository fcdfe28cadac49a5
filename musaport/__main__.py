from musaport.cli import main

main()
