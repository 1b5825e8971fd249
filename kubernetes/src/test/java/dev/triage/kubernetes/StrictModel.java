package dev.triage.kubernetes;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The fields of a Kubernetes model object that its class does not know. Kubernetes' model classes
 * keep such fields aside (in {@code additionalProperties}) instead of failing, as the API server
 * would with strict validation; a misspelt or misplaced key ends up there.
 */
final class StrictModel {

    private StrictModel() {}

    /** Every unknown field under {@code root}, as a path such as {@code spec.template.spec.containers[1].livenesProbe}. */
    static List<String> unknownFields(Object root) {
        List<String> unknown = new ArrayList<>();
        walk(root, "", unknown);
        return unknown;
    }

    private static void walk(Object value, String path, List<String> unknown) {
        if (value instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                walk(item, path + "[" + i++ + "]", unknown);
            }
        } else if (value instanceof Map<?, ?> entries) {
            entries.forEach((key, item) -> walk(item, path + "[" + key + "]", unknown));
        } else if (value instanceof KubernetesResource) {
            for (Method getter : value.getClass().getMethods()) {
                if (!isProperty(getter)) {
                    continue;
                }
                Object property = invoke(getter, value);
                if (getter.getName().equals("getAdditionalProperties")) {
                    ((Map<?, ?>) property).keySet().forEach(key -> unknown.add(join(path, String.valueOf(key))));
                } else {
                    walk(property, join(path, propertyName(getter)), unknown);
                }
            }
        }
    }

    private static boolean isProperty(Method method) {
        return method.getName().startsWith("get") && method.getParameterCount() == 0
                && !Modifier.isStatic(method.getModifiers()) && method.getDeclaringClass() != Object.class;
    }

    private static Object invoke(Method getter, Object target) {
        try {
            return getter.invoke(target);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException(getter.toString(), e);
        }
    }

    private static String propertyName(Method getter) {
        String name = getter.getName().substring(3);
        return Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }

    private static String join(String path, String name) {
        return path.isEmpty() ? name : path + "." + name;
    }
}
