# embed_file(OUT_CPP SYMBOL INPUT): generates a .cpp defining
#   extern const char SYMBOL[];  (the file's bytes, NUL-terminated)
# so schema.sql and the default config ship inside the binary and there is
# still exactly one copy of each in the source tree.
function(embed_file out_cpp symbol input)
  add_custom_command(
    OUTPUT ${out_cpp}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${out_cpp} -DSYMBOL=${symbol}
            -P ${PROJECT_SOURCE_DIR}/third_party/cmake/EmbedFileScript.cmake
    DEPENDS ${input} ${PROJECT_SOURCE_DIR}/third_party/cmake/EmbedFileScript.cmake
    COMMENT "Embedding ${input}")
endfunction()
