# wieting2017: no table is built yet (the paper's issue builds them); its named target builds the
# tables its config block lists.


rule wieting2017:
    input:
        table_targets("wieting2017"),
