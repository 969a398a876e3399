package io.jfio.ship.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Reads a configuration file, YAML ({@code .yaml}, {@code .yml}) or TOML ({@code .toml}), onto {@link RawConfig}.
 * Keys are kebab case ({@code max-record}); unknown keys are errors (a typo must not silently mean a default).
 * Values may refer to environment variables: {@code ${NAME}}, {@code ${NAME:-default}} ({@link EnvSubstitution}).
 *
 * <p>Thread-safe; stateless.
 */
public final class ConfigLoader {
    private ConfigLoader() {
    }

    /**
     * Reads {@code file}, with {@code ${NAME}} references in its values taken from the environment.
     *
     * @throws ConfigException when it cannot be read or parsed, naming the file, the line and the problem
     */
    public static RawConfig load(Path file) throws ConfigException {
        return load(file, System.getenv());
    }

    /**
     * Reads {@code file}, with {@code ${NAME}} references in its values taken from {@code env} (see
     * {@link EnvSubstitution}).
     *
     * @throws ConfigException when it cannot be read or parsed, naming the file, the line and the problem
     */
    public static RawConfig load(Path file, Map<String, String> env) throws ConfigException {
        String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        ObjectMapper mapper;
        if (name.endsWith(".toml")) {
            mapper = new TomlMapper();
        } else if (name.endsWith(".yaml") || name.endsWith(".yml")) {
            mapper = new YAMLMapper();
        } else {
            throw new ConfigException("config file must end in .yaml, .yml or .toml: file=" + file);
        }
        mapper.setPropertyNamingStrategy(PropertyNamingStrategies.KEBAB_CASE);
        mapper.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        mapper.enable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY);
        mapper.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        // A key given twice is a mistake to report, not a silent "the last one wins".
        mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        byte[] bytes;
        try {
            // A FIFO or device at the name would be read for ever (or block at its open). (A directory or a missing
            // file fails the read below, with the system's reason.)
            if (Files.exists(file) && !Files.isRegularFile(file) && !Files.isDirectory(file)) {
                throw new ConfigException("config file is not a regular file: file=" + file + " (--config)");
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + file + ": " + io.jfio.ship.log.OsReason.of(e)
                    + " (--config)", e);
        }
        if (bytes.length == 0) throw new ConfigException("config file is empty: file=" + file);
        try {
            RawConfig raw;
            if (EnvSubstitution.mayNeed(bytes)) {
                JsonNode tree = mapper.readTree(bytes);
                try {
                    EnvSubstitution.apply(tree, env);
                } catch (IllegalArgumentException e) {
                    throw new ConfigException("config file " + file + ": " + e.getMessage(), e);
                }
                raw = tree == null || tree.isMissingNode() ? null : mapper.treeToValue(tree, RawConfig.class);
            } else {
                raw = mapper.readValue(bytes, RawConfig.class);
            }
            if (raw == null) throw new ConfigException("config file is empty: file=" + file);
            return raw;
        } catch (UnrecognizedPropertyException e) {
            throw new ConfigException("unknown key in config file: file=" + file + keyLine(bytes, e) + " key="
                    + e.getPropertyName() + " (known keys: " + e.getKnownPropertyIds() + ")", e);
        } catch (MismatchedInputException e) {
            throw new ConfigException("invalid value in config file: file=" + file + where(e) + " key="
                    + keyPath(e) + " expected=" + expected(e.getTargetType()), e);
        } catch (JsonProcessingException e) {
            throw new ConfigException("invalid config file: file=" + file + where(e) + " problem="
                    + e.getOriginalMessage().replace('\n', ' '), e);
        } catch (IOException e) {
            throw new ConfigException("cannot read config file: file=" + file + " error=" + e, e);
        }
    }

    /**
     * The line where an unknown key is written. The parser's location is where it noticed, which for YAML is the
     * line after the key (it reads the value first); the first line that starts with the key is where it is.
     */
    private static String keyLine(byte[] bytes, UnrecognizedPropertyException e) {
        String key = e.getPropertyName();
        if (key != null) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^[ \\t]*(- )?[\"']?"
                    + java.util.regex.Pattern.quote(key) + "[\"']?[ \\t]*[:=]")
                    .matcher(new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
            if (m.find()) {
                String before = new String(bytes, java.nio.charset.StandardCharsets.UTF_8).substring(0, m.start());
                return " line=" + (before.chars().filter(c -> c == '\n').count() + 1);
            }
        }
        return where(e);
    }

    /** The key a value belongs to, as written: {@code inputs[0].max-record}. */
    private static String keyPath(JsonMappingException e) {
        StringBuilder b = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                if (!b.isEmpty()) b.append('.');
                b.append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                b.append('[').append(r.getIndex()).append(']');
            }
        }
        return b.isEmpty() ? "(top level)" : b.toString();
    }

    /** What a value of {@code type} is written as, in the words of the configuration rather than of Java. */
    private static String expected(Class<?> type) {
        if (type == null) return "another kind of value";
        if (type == int.class || type == long.class || type == Integer.class || type == Long.class
                || type == double.class || type == Double.class) {
            return "a number";
        }
        if (type == boolean.class || type == Boolean.class) return "true or false";
        if (type == String.class || type.isEnum()) return "a single value (text)";
        if (java.util.Collection.class.isAssignableFrom(type) || type.isArray()) return "a list";
        return "a mapping of keys to values";
    }

    private static String where(JsonProcessingException e) {
        JsonLocation loc = e.getLocation();
        return loc == null || loc.getLineNr() < 1 ? "" : " line=" + loc.getLineNr();
    }
}
